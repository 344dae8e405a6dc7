"""Digit alphabets: how the values ``1..n`` are written.

The default convention (that of ``shared/data``) writes 1-9 as digits, then
``A`` = 10, ``B`` = 11, ... ``P`` = 25.  Blanks are ``.`` (also ``_``, ``*``,
``?``) and ``0`` whenever ``0`` is not itself a digit of the alphabet.  Another
alphabet is given with ``--digits``, e.g. ``0-9A-F`` for hexadecimal 16x16
puzzles (then ``0`` means 1 and only ``.`` is a blank).

>>> default_alphabet(16)
'123456789ABCDEFG'
>>> parse_digits("0-9A-F")
'0123456789ABCDEF'
>>> sorted(blanks_for("0123456789ABCDEF"))
['*', '.', '?', '_']
"""

from __future__ import annotations

from qsudoku.errors import PuzzleFormatError

__all__ = ["SYMBOLS", "default_alphabet", "parse_digits", "check_alphabet", "blanks_for",
           "decode_symbol"]

#: Symbols for values 1, 2, 3, ... in the default convention.
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_BLANKS = frozenset(".*?_")


def default_alphabet(n: int) -> str:
    """The default symbols for a size-``n`` grid."""
    if not 1 <= n <= len(SYMBOLS):
        raise PuzzleFormatError(f"size {n} is not supported (1..{len(SYMBOLS)})")
    return SYMBOLS[:n]


def parse_digits(spec: str) -> str:
    """Expand a digits option such as ``"0-9A-F"`` or ``"1-9A-G"`` into an alphabet.

    A spec without ranges is taken literally (``"123456789ABCDEFG"``).

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
    return check_alphabet("".join(out).upper(), spec)


def check_alphabet(alphabet: str, spec: str | None = None) -> str:
    """``alphabet`` if each of its symbols stands for one value: no symbol twice (case
    folded, as puzzles are read) and no blank symbol.

    Args:
        alphabet: The symbols of values ``1..n``.
        spec: How the user wrote it, for the message (default: ``alphabet``).

    Raises:
        PuzzleFormatError: A symbol is repeated (``"1123"`` would read a ``2`` as value 3)
            or is a blank.

    >>> check_alphabet("1123")
    Traceback (most recent call last):
    ...
    qsudoku.errors.PuzzleFormatError: digits '1123' repeat a symbol: '1' at positions 1 and 2 (each value needs its own symbol)
    """
    spec = alphabet if spec is None else spec
    seen: dict[str, int] = {}
    for k, ch in enumerate(alphabet.upper()):
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
    up = ch.upper()
    if len(ch) != 1 or len(up) != 1:  # 'ß'.upper() == 'SS' must not match a substring
        return None
    k = alphabet.find(up)
    return k + 1 if k >= 0 else None
