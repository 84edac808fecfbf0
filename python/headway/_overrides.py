"""Edit an experiment by dotted keys (``drive.queue_depth``, ``devices.0.name``) on its
parsed TOML, so the command line and sweeps can change any setting without knowing the
schema: the simulator validates the result and names any key it does not know."""

from __future__ import annotations

import copy
from typing import Any, Dict, Mapping, MutableMapping, Optional, Tuple

try:  # Python 3.11+
    import tomllib
except ImportError:  # pragma: no cover - older Pythons
    import tomli as tomllib  # type: ignore[no-redef]

from headway._source import source, to_toml
from headway.config import Config, ConfigLike
from headway.errors import ConfigError

__all__ = ["load", "set_dotted", "get_dotted", "with_overrides"]


def load(config: ConfigLike) -> Tuple[Dict[str, Any], Optional[str]]:
    """``(experiment as a dict, origin)``: origin is the file relative paths resolve against."""
    if isinstance(config, Config):
        return config.to_dict(), None
    if isinstance(config, Mapping):
        return copy.deepcopy(dict(config)), None
    text, origin = source(config)
    if text is None:
        assert origin is not None
        try:
            with open(origin, "rb") as f:
                return tomllib.load(f), origin
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{origin}: {e}") from None
    try:
        return tomllib.loads(text), origin
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{origin or 'config'}: {e}") from None


def _index(container: Any, part: str, dotted: str) -> Any:
    if isinstance(container, list):
        try:
            return int(part)
        except ValueError:
            raise ConfigError(f"key `{dotted}`: `{part}` indexes an array; give a number") from None
    return part


def get_dotted(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        key = _index(node, part, dotted)
        node = node[key]
    return node


def set_dotted(data: MutableMapping[str, Any], dotted: str, value: Any) -> None:
    """Set ``a.b.c`` (creating tables on the way); a number indexes an array
    (``devices.1.name``). A key the simulator does not know is left for it to reject.

    >>> d = {"drive": {"name": "atlas10k"}}
    >>> set_dotted(d, "drive.queue_depth", 8); d
    {'drive': {'name': 'atlas10k', 'queue_depth': 8}}
    """
    parts = dotted.split(".")
    if not all(parts):
        raise ConfigError(f"key `{dotted}`: empty part in a dotted key")
    node: Any = data
    for part in parts[:-1]:
        key = _index(node, part, dotted)
        if isinstance(node, list):
            if not -len(node) <= key < len(node):
                raise ConfigError(f"key `{dotted}`: index {key} is past the array's {len(node)} entries")
            node = node[key]
        elif isinstance(node, MutableMapping):
            node = node.setdefault(key, {})
        else:
            raise ConfigError(f"key `{dotted}`: `{part}` is inside a value, not a table")
        if not isinstance(node, (MutableMapping, list)):
            raise ConfigError(f"key `{dotted}`: `{part}` is a value, not a table")
    last = _index(node, parts[-1], dotted)
    if isinstance(node, list) and not -len(node) <= last < len(node):
        raise ConfigError(f"key `{dotted}`: index {last} is past the array's {len(node)} entries")
    node[last] = value


def with_overrides(
    config: ConfigLike, overrides: Mapping[str, Any]
) -> Tuple[str, Optional[str]]:
    """``(toml_text, origin)`` of ``config`` with the dotted ``overrides`` applied."""
    data, origin = load(config)
    for key, value in overrides.items():
        set_dotted(data, key, value)
    return to_toml(data), origin
