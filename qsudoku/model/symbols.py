"""Digit alphabets: how the values ``1..n`` are written.

By default 1-9, then ``A`` = 10 ... ``Z`` = 35 (either case); from 36x36 up to
:data:`MAX_SIZE` on with ``a`` ... ``z``, ``@``, ``$``, ``%``, read case-sensitively.
Blanks are ``.``, ``_``, ``*``, ``?`` and ``0`` unless ``0`` is a digit.  ``--digits``
gives another alphabet (``0-9A-F``); one whose symbols stay distinct in upper case is
read in either case, one that needs both cases is read as given.

>>> default_alphabet(16)
'123456789ABCDEFG'
>>> default_alphabet(49)[-3:]
'lmn'
>>> parse_digits("0-9A-F")
'0123456789ABCDEF'
>>> parse_digits("0-9a-f")
'0123456789ABCDEF'
>>> len(parse_digits("0-9A-Za-z")), parse_digits("0-9A-Za-z")[36]
(62, 'a')
>>> sorted(blanks_for("0123456789ABCDEF"))
['*', '.', '?', '_']
>>> digits_spec(default_alphabet(49))
'1-9A-Za-n'
"""

from __future__ import annotations

from qsudoku.errors import PuzzleFormatError

__all__ = ["SYMBOLS", "WIDE_SYMBOLS", "MAX_SIZE", "REGION_LABELS", "default_alphabet", "parse_digits",
           "check_alphabet", "blanks_for", "decode_symbol", "case_sensitive", "digits_spec"]

#: Symbols for values 1, 2, 3, ... in the default convention, read in either case.
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: The default symbols of grids larger than ``len(SYMBOLS)``, read case-sensitively.
WIDE_SYMBOLS = SYMBOLS + "abcdefghijklmnopqrstuvwxyz@$%"
#: The largest grid side qsudoku reads (one default symbol per value).
MAX_SIZE = len(WIDE_SYMBOLS)
_BLANKS = frozenset(".*?_")
#: The labels qsudoku writes a region map with, one per region up to :data:`MAX_SIZE`
#: (none is a character the map reader skips, so every map written reads back).
REGION_LABELS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@+"
#: Characters a region map may hold between its labels (row separators), never labels.
REGION_SEPARATORS = "/|,"


def default_alphabet(n: int) -> str:
    """The default symbols for a size-``n`` grid.

    >>> default_alphabet(65)
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: size 65 is not supported (1..64)
    """
    if not 1 <= n <= MAX_SIZE:
        raise PuzzleFormatError(f"size {n} is not supported (1..{MAX_SIZE})")
    return (SYMBOLS if n <= len(SYMBOLS) else WIDE_SYMBOLS)[:n]


def case_sensitive(alphabet: str) -> bool:
    """True if ``alphabet`` is read exactly as written (it has lower-case symbols).

    >>> case_sensitive("123456789ABCDEFG"), case_sensitive("0-9A-Za-z")
    (False, True)
    """
    return alphabet != alphabet.upper()


def digits_spec(alphabet: str) -> str:
    """``alphabet`` written back in the ``--digits`` form, runs of 3 or more as ranges.

    >>> digits_spec("0123456789ABCDEF"), digits_spec("12A")
    ('0-9A-F', '12A')
    """
    out, i = [], 0
    while i < len(alphabet):
        j = i
        while j + 1 < len(alphabet) and ord(alphabet[j + 1]) == ord(alphabet[j]) + 1:
            j += 1
        out.append(f"{alphabet[i]}-{alphabet[j]}" if j - i >= 2 else alphabet[i:j + 1])
        i = j + 1
    return "".join(out)


def parse_digits(spec: str) -> str:
    """Expand a digits option such as ``"0-9A-F"`` or ``"1-9A-G"`` into an alphabet.

    Upper-cased (then read in either case) when its symbols stay distinct that way.

    Raises:
        PuzzleFormatError: On an empty spec, a reversed range or a repeated symbol.

    >>> parse_digits("")
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: digits '' name no symbol: give the symbols of 1..n, e.g. 1-9 or 0-9A-F
    """
    if not spec.strip():
        raise PuzzleFormatError(f"digits {spec!r} name no symbol: give the symbols of 1..n, "
                                "e.g. 1-9 or 0-9A-F")
    out = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            a, b = spec[i], spec[i + 2]
            if ord(b) < ord(a):
                raise PuzzleFormatError(f"digits range {a}-{b} is reversed")
            out.extend(chr(x) for x in range(ord(a), ord(b) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    alphabet = "".join(out)
    folded = alphabet.upper()
    if len(folded) == len(alphabet) and len(set(folded)) == len(set(alphabet)):
        alphabet = folded
    return check_alphabet(alphabet, spec)


def check_alphabet(alphabet: str, spec: str | None = None) -> str:
    """``alphabet`` (the symbols of values ``1..n``) if each of its symbols stands for one
    value: none twice (case folded unless :func:`case_sensitive`) and none a blank; else a
    ``PuzzleFormatError`` quoting ``spec``, how the user wrote it (default: ``alphabet``).

    >>> check_alphabet("1123")
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: digits '1123' repeat a symbol: '1' at positions 1 and 2 (each value needs its own symbol)
    """
    spec = alphabet if spec is None else spec
    seen: dict[str, int] = {}
    for k, ch in enumerate(alphabet if case_sensitive(alphabet) else alphabet.upper()):
        if ch in _BLANKS or ch.isspace():
            raise PuzzleFormatError(f"digits {spec!r} use the blank symbol {ch!r}")
        if ch in seen:
            raise PuzzleFormatError(f"digits {spec!r} repeat a symbol: {ch!r} at positions "
                                    f"{seen[ch] + 1} and {k + 1} (each value needs its own "
                                    "symbol)")
        seen[ch] = k
    return alphabet


def blanks_for(alphabet: str) -> frozenset[str]:
    """Characters that mean 'blank' next to ``alphabet``."""
    return _BLANKS if "0" in alphabet else _BLANKS | {"0"}


def decode_symbol(ch: str, alphabet: str, blanks: frozenset[str]) -> int | None:
    """Value of one symbol: ``0`` for a blank, ``1..n``, or ``None`` if unknown."""
    if ch in blanks:
        return 0
    if case_sensitive(alphabet):
        k = alphabet.find(ch) if len(ch) == 1 else -1
        return k + 1 if k >= 0 else None
    up = ch.upper()
    if len(ch) != 1 or len(up) != 1:  # 'ß'.upper() == 'SS' must not match a substring
        return None
    k = alphabet.find(up)
    return k + 1 if k >= 0 else None
