"""Simple JSONPath-like field paths (``a.b[0].c``, ``items[*].id``), parsed without ``eval``.

Grammar: an optional leading ``$`` or ``$.``; keys separated by dots; ``[n]`` indexes a list
(negative counts from the end); ``[*]`` or ``.*`` takes every item of a list or every value of a
mapping; ``['key.with.dots']`` quotes a key.
"""

from __future__ import annotations

import re
from typing import Any

from assay.errors import InvalidInputError

_TOKEN = re.compile(
    r"""\.?(?P<key>[A-Za-z_][\w\-]*|\*)      # .key or .*
      | \[(?P<index>-?\d+)\]                 # [3]
      | \[(?P<star>\*)\]                     # [*]
      | \[(?P<q>['"])(?P<quoted>.*?)(?P=q)\] # ['a.b']
    """,
    re.VERBOSE,
)
#: A parsed step: ("key", name), ("index", n) or ("all", None).
Step = tuple[str, Any]
_MISSING = object()


def parse_path(path: str) -> list[Step]:
    """Parse ``path`` into steps.

    Example:
        >>> parse_path("$.items[*].id")
        [('key', 'items'), ('all', None), ('key', 'id')]
        >>> parse_path("meta['a.b'][0]")
        [('key', 'meta'), ('key', 'a.b'), ('index', 0)]
    """
    text = path.strip()
    text = text[1:] if text.startswith("$") else text
    steps: list[Step] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise InvalidInputError(f"cannot parse field path {path!r} at character {position}")
        if match.group("index") is not None:
            steps.append(("index", int(match.group("index"))))
        elif match.group("star") or match.group("key") == "*":
            steps.append(("all", None))
        elif match.group("quoted") is not None:
            steps.append(("key", match.group("quoted")))
        else:
            steps.append(("key", match.group("key")))
        position = match.end()
    if not steps:
        raise InvalidInputError(f"field path {path!r} is empty")
    return steps


def select(document: Any, path: str) -> list[tuple[str, Any]]:
    """Every ``(concrete path, value)`` that ``path`` reaches in ``document`` (empty when none).

    Example:
        >>> doc = {"items": [{"id": 1}, {"id": 2}, {"name": "x"}]}
        >>> select(doc, "items[*].id")
        [('items[0].id', 1), ('items[1].id', 2)]
        >>> select(doc, "items[5]")
        []
    """
    found: list[tuple[str, Any]] = [("", document)]
    for kind, arg in parse_path(path):
        following: list[tuple[str, Any]] = []
        for where, value in found:
            if kind == "key" and isinstance(value, dict) and arg in value:
                following.append((f"{where}.{arg}" if where else str(arg), value[arg]))
            elif kind == "index" and isinstance(value, list) and -len(value) <= arg < len(value):
                following.append((f"{where}[{arg}]", value[arg]))
            elif kind == "all" and isinstance(value, list):
                following.extend((f"{where}[{i}]", v) for i, v in enumerate(value))
            elif kind == "all" and isinstance(value, dict):
                following.extend((f"{where}.{k}" if where else str(k), v)
                                 for k, v in value.items())
        found = following
    return found
