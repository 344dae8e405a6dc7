"""Configuration: TOML files mapped onto frozen dataclasses.

:mod:`~qsudoku.config.settings` holds the tables (:class:`Config` and its parts) and
:data:`DEFAULTS`, read from the shipped ``qsudoku/defaults.toml``, the one home of every
default; :mod:`~qsudoku.config.validate` checks raw data before it becomes those tables;
:mod:`~qsudoku.config.files` reads config files and command-line values.
"""

from qsudoku.config.files import MAX_CONFIG_BYTES, load_config, toml_value
from qsudoku.config.settings import (DEFAULT_CONFIG_PATH, DEFAULTS, MIN_WORKER_MEMORY,
                                     ClusterConfig, Config, PropagateConfig, QuboConfig,
                                     RouteConfig, SamplerConfig, need_worker_memory)
from qsudoku.config.validate import WEIGHT_KEYS, weight_overrides

__all__ = ["Config", "PropagateConfig", "QuboConfig", "SamplerConfig", "RouteConfig", "ClusterConfig",
           "load_config", "toml_value", "DEFAULT_CONFIG_PATH", "DEFAULTS", "MAX_CONFIG_BYTES",
           "WEIGHT_KEYS", "weight_overrides", "MIN_WORKER_MEMORY", "need_worker_memory"]
