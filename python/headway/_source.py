"""What an experiment's configuration becomes for the simulator: TOML text, and the file it
came from, whatever form the caller gave it in (see :mod:`headway.config`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping, Optional, Tuple

from headway.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from headway.config import ConfigLike

__all__ = ["source", "to_toml", "default_config_text"]


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


def _looks_like_toml(text: str) -> bool:
    return "\n" in text or "=" in text or text.lstrip().startswith("[")


def _is_existing_file(text: str) -> bool:
    """Whether ``text`` names an existing file; TOML text longer than a file name can be is
    not one (the system refuses to look it up and says so with an OSError)."""
    from pathlib import Path

    try:
        return Path(text).exists()
    except (OSError, ValueError):
        return False


def source(config: ConfigLike) -> Tuple[Optional[str], Optional[str]]:
    """``(toml_text, origin)`` for the simulator. ``origin`` is the file the text came from:
    errors name it and relative paths inside resolve against its folder. A file path is
    passed on unread, so the simulator reports a missing file in its own words."""
    if config is None:
        return default_config_text(), str(_default_path())
    if isinstance(config, Mapping):
        return to_toml(config), None
    if isinstance(config, os.PathLike):
        return None, os.fspath(config)
    if isinstance(config, str):
        if _looks_like_toml(config) and not _is_existing_file(config):
            return config, None
        return None, config
    # Imported here: the typed configuration's classes cost a few ms of every command's start.
    from headway.config import Config

    if isinstance(config, Config):
        return config.to_toml(), None
    raise TypeError(
        "config must be a TOML file path, a TOML string, a dict or headway.Config, "
        f"not {type(config).__name__}"
    )
