"""What an experiment's configuration becomes for the simulator: TOML text, and the file it
came from, whatever form the caller gave it in (see :mod:`headway.config`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Mapping, Optional, Tuple

from headway._toml_text import _default_path, default_config_text, to_toml

if TYPE_CHECKING:
    from headway.config import ConfigLike

__all__ = ["source", "to_toml", "default_config_text"]


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
