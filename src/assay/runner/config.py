"""Target config files: which system to call and how (YAML, JSON or TOML).

A config is a mapping with a ``type`` (``http``, ``openai``, ``command``, ``python`` or a connector
plugin's name, see :data:`~assay.runner.connectors.registry.CONNECTORS`), a ``name``
(recorded as ``TestCase.model``), the connector's own keys and the run settings (``concurrency``,
``retries``, ``timeout_s``, ``backoff_s``, ``backoff_max_s``, ``retry_bad_response``). Strings may
use ``${ENV_VAR}`` so secrets stay out of the file. See docs/runner.md for examples.
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError, require
from assay.runner.connectors.base import Connector
from assay.runner.connectors.registry import CONNECTORS
from assay.runner.execute import RunSettings
from assay.runner.mapping import expand_env

_SETTINGS = tuple(f.name for f in fields(RunSettings))
_KEYS: dict[str, tuple[str, ...]] = {
    "http": ("url", "method", "headers", "request", "response"),
    "openai": (
        "model",
        "base_url",
        "api_key",
        "system_prompt",
        "retriever",
        "prompt_template",
        "temperature",
        "max_tokens",
        "price_per_1k_input",
        "price_per_1k_output",
    ),
    "command": ("command", "stdin", "output", "response", "env"),
    "python": ("callable", "response"),
}
_REQUIRED = {"http": "url", "openai": "model", "command": "command", "python": "callable"}


def read_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Parse a target config file (``.yaml``/``.yml``, ``.json`` or ``.toml``) into a mapping."""
    file = Path(path)
    if not file.is_file():
        raise InvalidInputError(f"{file}: no such target config file")
    text = file.read_text(encoding="utf-8")
    suffix = file.suffix.lower()
    try:
        if suffix in (".yaml", ".yml"):
            yaml: Any = require("yaml", extra="runner", package="pyyaml")
            data = yaml.safe_load(text)
        elif suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise InvalidInputError(f"{file}: unknown config format; use .yaml, .json or .toml")
    except InvalidInputError:
        raise
    except Exception as exc:  # yaml / toml / json syntax errors
        raise InvalidInputError(f"{file}: cannot parse the target config ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{file}: the target config must be a mapping")
    return data


def build_target(
    config: dict[str, Any], *, base_dir: Path | None = None, where: str = "target config"
) -> tuple[Connector, RunSettings]:
    """Build the connector and run settings a config describes.

    Example:
        >>> connector, settings = build_target(
        ...     {"type": "python", "name": "echo", "callable": "os.path:basename", "retries": 0})
        >>> connector.name, settings.retries
        ('echo', 0)
    """
    config = expand_env(dict(config), where)
    kind = config.pop("type", None)
    if not isinstance(kind, str) or kind not in CONNECTORS:
        raise InvalidInputError(
            f"{where}: 'type' must be one of {', '.join(CONNECTORS.names())}; got {kind!r}"
        )
    name = config.pop("name", None)
    settings_keys = {k: config.pop(k) for k in list(config) if k in _SETTINGS}
    # a plugin's keys are checked by its own signature (a TypeError below)
    unknown = sorted(set(config) - set(_KEYS[kind])) if kind in _KEYS else []
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown key(s) {', '.join(unknown)} for type {kind!r}; allowed: "
            f"{', '.join(('name', *_KEYS[kind], *_SETTINGS))}"
        )
    if kind in _REQUIRED and _REQUIRED[kind] not in config:
        raise InvalidInputError(f"{where}: type {kind!r} needs the key {_REQUIRED[kind]!r}")
    try:
        settings = RunSettings(**settings_keys)
    except TypeError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    try:
        connector = _connector(kind, name, config, base_dir)
    except TypeError as exc:
        raise InvalidInputError(f"{where}: {exc}") from None
    return connector, settings


def _connector(
    kind: str, name: str | None, config: dict[str, Any], base_dir: Path | None
) -> Connector:
    """The connector of type ``kind``; references to Python callables in the built-ins' keys are
    resolved here, relative to the config file's folder."""
    from assay.runner.connectors import load_callable

    if kind == "python":
        config["fn"] = load_callable(config.pop("callable"), base_dir)
    if kind == "openai" and isinstance(config.get("retriever"), str):
        config["retriever"] = load_callable(config["retriever"], base_dir)
    named: dict[str, Any] = {"name": name} if name else {}
    return CONNECTORS.get(kind)(**named, **config)


def load_target(path: str | os.PathLike[str]) -> tuple[Connector, RunSettings]:
    """Read a target config file and build its connector and run settings."""
    file = Path(path)
    return build_target(read_config(file), base_dir=file.resolve().parent, where=str(file))
