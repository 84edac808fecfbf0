"""Experiment TOML text: a dict written as TOML, and the built-in default experiment."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping

from headway.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["to_toml", "default_config_text"]


def _drop_none(value: Any) -> Any:
    """TOML has no null: a ``None`` means "use the default", so the key is left out."""
    if isinstance(value, Mapping):
        return {str(k): _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_drop_none(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "to_dict"):
        return _drop_none(value.to_dict())
    return value


def to_toml(data: Mapping[str, Any]) -> str:
    """A dict as experiment TOML (``None`` values dropped).

    >>> to_toml({"seed": 4, "drive": {"name": "elite3", "queue_depth": None}})
    'seed = 4\\n\\n[drive]\\nname = "elite3"\\n'
    """
    try:
        import tomli_w  # only when a configuration is written out

        return tomli_w.dumps(_drop_none(data))
    except (TypeError, ValueError) as e:
        raise ConfigError(f"config: cannot be written as TOML: {e}") from e


def default_config_text() -> str:
    """The built-in default experiment (also ``examples/default.toml`` in the repository).

    >>> "[workload]" in default_config_text()
    True
    """
    return _default_path().read_text(encoding="utf-8")


def _default_path() -> Path:
    # The package's own folder, not importlib.resources (slow to import): headway is
    # installed as files (a wheel or an editable install), never run from a zip. pathlib
    # here, not at the top: a replay's configuration is a dict and needs none.
    from pathlib import Path

    return Path(__file__).with_name("default.toml")
