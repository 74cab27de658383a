"""Target config files: which system to call and how (YAML, JSON or TOML).

A config is a mapping with a ``type`` (``http``, ``openai``, ``command``, ``python``,
``langchain``, ``llamaindex`` or a connector plugin's name, see
:data:`~assay.runner.connectors.registry.CONNECTORS`), a ``name`` (recorded as
``TestCase.model``), the connector's own keys and the run settings (``concurrency``, ``retries``,
``timeout_s``, ``backoff_s``, ``backoff_max_s``, ``retry_bad_response``). Strings may use
``${ENV_VAR}`` so secrets stay out of the file. See docs/runner.md for examples.
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
    "langchain": ("runnable", "input_key", "output_key", "history"),
    "llamaindex": ("engine", "mode"),
}
#: The key each built-in type needs; ``TYPE:VALUE`` on the command line sets it (see
#: :func:`target_from_spec`).
_REQUIRED = {
    "http": "url",
    "openai": "model",
    "command": "command",
    "python": "callable",
    "langchain": "runnable",
    "llamaindex": "engine",
}
#: Keys of the built-in types naming a Python object (``module:name`` or ``file.py:name``,
#: relative to the config file), and the connector argument that receives the object.
_OBJECT_KEYS = {
    "python": ("callable", "fn"),
    "openai": ("retriever", "retriever"),
    "langchain": ("runnable", "runnable"),
    "llamaindex": ("engine", "engine"),
}


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
    from assay.registry import load_object

    if kind in _OBJECT_KEYS:
        key, argument = _OBJECT_KEYS[kind]
        if isinstance(config.get(key), str):
            config[argument] = load_object(config.pop(key), base_dir)
    named: dict[str, Any] = {"name": name} if name else {}
    return CONNECTORS.get(kind)(**named, **config)


def target_from_spec(spec: str) -> dict[str, Any] | None:
    """The config a ``TYPE:VALUE`` target spec stands for, or None when ``spec`` is not one.

    ``VALUE`` fills the key the type needs: ``python:app.rag:answer``,
    ``langchain:app.chains:qa_chain``, ``llamaindex:app/engine.py:build_engine``,
    ``openai:gpt-4o-mini``, ``http:http://127.0.0.1:8000/ask``.

    Example:
        >>> target_from_spec("langchain:app.chains:qa_chain")
        {'type': 'langchain', 'runnable': 'app.chains:qa_chain'}
        >>> target_from_spec("target.yaml") is None
        True
    """
    kind, sep, value = spec.partition(":")
    if not sep or not value or kind not in _REQUIRED or kind == "command":  # a list: file only
        return None
    return {"type": kind, _REQUIRED[kind]: value}


def load_target(path: str | os.PathLike[str]) -> tuple[Connector, RunSettings]:
    """Build the connector and run settings of a target config file, or of a ``TYPE:VALUE``
    spec (:func:`target_from_spec`) when no such file exists; references in a spec are resolved
    from the current directory."""
    file = Path(path)
    if not file.exists():
        spec = target_from_spec(str(path))
        if spec is None:
            types = ", ".join(t for t in _REQUIRED if t != "command")
            raise InvalidInputError(
                f"{path}: no such target config file, nor a TYPE:VALUE target ({types})"
            )
        return build_target(spec, base_dir=Path.cwd(), where=f"target {str(path)!r}")
    return build_target(read_config(file), base_dir=file.resolve().parent, where=str(file))
