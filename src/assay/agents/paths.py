"""Where agent artifacts live on a test case, and resolving their paths safely.

A case records its agent's work in ``metadata``:

- ``metadata["artifacts"]``: a folder, or a list of files and folders, the agent created;
- ``metadata["chat"]``: the chat session, a list of ``{"role": ..., "content": ...}`` messages;
- ``metadata["artifact_spec"]`` (optional): a specification for this case only (a mapping, or
  the path of a JSON / YAML / TOML file), overriding the evaluator's.

Relative paths are resolved against a base folder (the suite file's folder by convention) and
every resolved path, symbolic links followed, must stay inside an allowed root, so a suite cannot
make an evaluator read ``../../etc/passwd``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError


def resolve_inside(path: str | os.PathLike[str], base: Path, root: Path) -> Path:
    """``path`` resolved against ``base`` (when relative), required to lie inside ``root``.

    Symbolic links are followed before the check, so a link pointing outside ``root`` is refused.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp()).resolve()
        >>> resolve_inside("out/a.json", root, root) == root / "out" / "a.json"
        True
        >>> resolve_inside("../secret", root, root)
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: '../secret' resolves outside the allowed root ...
    """
    raw = Path(path).expanduser()
    full = (raw if raw.is_absolute() else base / raw).resolve()
    root = root.resolve()
    if full != root and root not in full.parents:
        raise InvalidInputError(
            f"{str(path)!r} resolves outside the allowed root {root} (path traversal refused)"
        )
    return full


def artifact_paths(value: Any, where: str = "metadata.artifacts") -> list[str]:
    """The artifact entries of a case: a folder or file name, or a list of them.

    Example:
        >>> artifact_paths("run/out"), artifact_paths(["a.json", "b.csv"])
        (['run/out'], ['a.json', 'b.csv'])
    """
    if isinstance(value, str | os.PathLike):
        return [os.fspath(value)]
    if isinstance(value, Sequence) and all(isinstance(v, str | os.PathLike) for v in value):
        return [os.fspath(v) for v in value]
    raise InvalidInputError(
        f"{where} must be a folder or a list of file paths; got {type(value).__name__}"
    )
