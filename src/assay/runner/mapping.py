"""Request templates and response paths for connectors: plain data, never ``eval``.

A *path* picks a value out of parsed JSON: dotted keys, list indices and ``[*]`` for "every
element" (``choices.0.message.content``, ``documents[*].text``). A *template* is JSON-like data in
which strings may hold ``{{name}}`` placeholders: a string that is exactly one placeholder takes the
variable's value with its type (a list stays a list); placeholders inside longer strings are
replaced by their text.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any

from assay.errors import InvalidInputError, PathError

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")
_ENV = re.compile(r"\$\{([A-Za-z_]\w*)\}")
_STEP = re.compile(r"([^.\[\]]+)|\[(\*|-?\d+)\]")


def _steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for part in path.split("."):
        if not part:
            raise InvalidInputError(f"invalid response path {path!r}: empty step")
        position = 0
        for match in _STEP.finditer(part):
            if match.start() != position:
                raise InvalidInputError(f"invalid response path {path!r} near {part!r}")
            key, index = match.groups()
            if key is not None:
                steps.append(int(key) if key.lstrip("-").isdigit() else key)
            else:
                steps.append("*" if index == "*" else int(index))
            position = match.end()
        if position != len(part):
            raise InvalidInputError(f"invalid response path {path!r} near {part!r}")
    return steps


def get_path(data: Any, path: str) -> Any:
    """Return the value at ``path`` in parsed JSON ``data``.

    Raises:
        PathError: when a key or index is absent (the message names the failing step).

    Example:
        >>> doc = {"answer": "12 euros",
        ...        "docs": [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}]}
        >>> get_path(doc, "answer"), get_path(doc, "docs[*].id"), get_path(doc, "docs.1.text")
        ('12 euros', ['a', 'b'], 'y')
    """
    return _walk(data, _steps(path), path)


def _walk(data: Any, steps: list[str | int], path: str) -> Any:
    for i, step in enumerate(steps):
        if step == "*":
            if not isinstance(data, list):
                raise PathError(f"{path}: expected a list before [*], got {type(data).__name__}")
            return [_walk(item, steps[i + 1 :], path) for item in data]
        if isinstance(step, int):
            if not isinstance(data, list) or not -len(data) <= step < len(data):
                raise PathError(f"{path}: no index {step}")
            data = data[step]
        else:
            if not isinstance(data, dict) or step not in data:
                raise PathError(f"{path}: no key {step!r}")
            data = data[step]
    return data


def render(template: Any, variables: dict[str, Any]) -> Any:
    """Fill ``{{name}}`` placeholders of a JSON-like template with ``variables``.

    Dotted names look into nested variables (``{{metadata.lang}}``). A missing variable renders as
    ``None`` when it is the whole string and as an empty string inside text.

    Example:
        >>> render({"q": "{{question}}", "k": "{{k}}", "msg": "Q: {{question}}"},
        ...        {"question": "Fee?", "k": 3})
        {'q': 'Fee?', 'k': 3, 'msg': 'Q: Fee?'}
    """
    return map_strings(template, lambda text: _render_text(text, variables))


def _render_text(template: str, variables: dict[str, Any]) -> Any:
    whole = _PLACEHOLDER.fullmatch(template.strip())
    if whole:
        return _lookup(variables, whole.group(1))

    def text(match: re.Match[str]) -> str:
        value = _lookup(variables, match.group(1))
        if value is None:
            return ""
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

    return _PLACEHOLDER.sub(text, template)


def map_strings(value: Any, transform: Callable[[str], Any]) -> Any:
    """``value`` with ``transform`` applied to every string inside it (dicts and lists walked,
    keys and other values kept).

    Example:
        >>> map_strings({"a": ["x", 1], "b": "y"}, str.upper)
        {'a': ['X', 1], 'b': 'Y'}
    """
    if isinstance(value, dict):
        return {key: map_strings(item, transform) for key, item in value.items()}
    if isinstance(value, list):
        return [map_strings(item, transform) for item in value]
    return transform(value) if isinstance(value, str) else value


def _lookup(variables: dict[str, Any], name: str) -> Any:
    try:
        return _walk(variables, _steps(name), name)
    except PathError:
        return None


def placeholders(template: Any) -> set[str]:
    """Names of the placeholders used anywhere in ``template``.

    Example:
        >>> sorted(placeholders({"q": "{{question}}", "ctx": ["{{ retrieved_context }}"]}))
        ['question', 'retrieved_context']
    """
    if isinstance(template, dict):
        return set().union(*(placeholders(v) for v in template.values())) if template else set()
    if isinstance(template, list):
        return set().union(*(placeholders(v) for v in template)) if template else set()
    if isinstance(template, str):
        return set(_PLACEHOLDER.findall(template))
    return set()


def expand_env(value: Any, where: str = "target config") -> Any:
    """Replace ``${VAR}`` in strings with environment variables (secrets stay out of files).

    Raises:
        InvalidInputError: naming the variable when it is not set.

    Example:
        >>> import os; os.environ["ASSAY_DOC_TOKEN"] = "t0k"
        >>> expand_env({"Authorization": "Bearer ${ASSAY_DOC_TOKEN}"})
        {'Authorization': 'Bearer t0k'}
    """

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise InvalidInputError(f"{where}: environment variable {name!r} is not set")
        return os.environ[name]

    return map_strings(value, lambda text: _ENV.sub(sub, text))
