"""Reading configuration: TOML config files and the values given on the command line.

A config file and a ``--param``/``--option`` value are read by the same TOML parser,
so a setting means the same in both places (``false`` is false, ``1e-3`` a number).

>>> toml_value("false"), toml_value("[0.1, 4]"), toml_value("fewest")
(False, [0.1, 4], 'fewest')
"""

from __future__ import annotations

import os

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11: the same parser, packaged as tomli
    import tomli as tomllib

from qsudoku.checks import need_type
from qsudoku.config.settings import Config
from qsudoku.errors import ConfigError
from qsudoku.io.reading import NotRegularFileError, read_regular

__all__ = ["load_config", "toml_value", "MAX_CONFIG_BYTES"]


def toml_value(text: str):
    """``text`` read as one TOML value (``false``, ``1e-3``, ``"a"``, ``[1, 2]``,
    ``{x = 1}``); ``text`` itself if it is not one (a bare word, ``10**9``).

    The one reading of a value given on the command line (``--param``, ``--option``,
    sweep axes), so it means what it would in a config file.

    >>> toml_value("true"), toml_value("True"), toml_value("'q'"), toml_value("1\\nx = 2")
    (True, 'True', 'q', '1\\nx = 2')
    """
    if "\n" in text or "\r" in text:  # one value, never a second key
        return text
    try:
        parsed = tomllib.loads(f"v = {text}")
    except (tomllib.TOMLDecodeError, RecursionError, MemoryError, ValueError):
        return text
    return parsed["v"] if list(parsed) == ["v"] else text


#: The largest config file read, in bytes (a config is a few hundred).
MAX_CONFIG_BYTES = 1 << 20


def load_config(path: str | None = None) -> Config:
    """Load a TOML config (``None`` = built-in defaults, the shipped ``qsudoku/defaults.toml``).

    Raises:
        ConfigError: The file is missing, not a regular file (a FIFO would block, a
            device never end), larger than :data:`MAX_CONFIG_BYTES`, not UTF-8, not
            TOML, nested deeper than TOML's parser can follow, or holds a bad value.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.mkfifo(os.path.join(folder, "pipe.toml"))
    >>> load_config(os.path.join(folder, "pipe.toml"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qsudoku.errors.ConfigError: .../pipe.toml: a FIFO, not a regular file: a config must be a file
    """
    if path is None:
        return Config()
    path = os.fspath(need_type("path", path, (str, os.PathLike), "a str or a path (or None)"))
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES, "config file")
    except NotRegularFileError as e:  # a FIFO would block, a device never end
        raise ConfigError(f"{path}: {e.kind}, not a regular file: a config must be a "
                          "file") from None
    if raw is None:
        raise ConfigError(f"config file not found: {path}")
    try:
        data = tomllib.loads(raw.decode("utf-8-sig"))  # a byte-order mark, as in puzzle files
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except (RecursionError, MemoryError):
        raise ConfigError(f"{path}: nested too deeply to read (a config is a few tables "
                          "deep)") from None
    try:
        return Config.from_dict(data, source=path)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read (a config is a few tables "
                          "deep)") from None
