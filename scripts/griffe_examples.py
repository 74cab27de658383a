"""Griffe extension for the documentation site: a Google docstring's ``Example:`` section (the
project's convention) read as ``Examples:``, so its doctest lines render as code.

Griffe reads a singular ``Example:`` as an admonition of prose; the doctests would then be parsed
as Markdown (``run.leaderboard[0]["value"]`` taken for a link). Wired in ``mkdocs.yml``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SINGULAR = re.compile(r"^(\s*)Example:\s*$", re.M)


class SingularExample(griffe.Extension):
    """Rename each docstring's ``Example:`` heading to ``Examples:``."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _SINGULAR.sub(r"\1Examples:", obj.docstring.value)
