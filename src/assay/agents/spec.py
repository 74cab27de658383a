"""The declarative artifact specification: what an agent's output folder must contain.

A specification is a mapping (or a JSON, YAML or TOML file holding one)::

    artifacts:                      # expected files and folders, relative to the artifacts folder
      - path: report.json           # a file (a glob such as "tables/*.csv" matches one or more)
        type: json                  # json, jsonl, yaml, toml, csv, tsv, pdf, python, text, any
        fields:                     # structured files only (json, jsonl rows, yaml, toml)
          - {path: title, non_empty: true}
          - {path: status, one_of: [done, partial]}
          - {path: "items[*].id", type: integer}
      - path: tables/*.csv
        columns: [id, value]
        min_rows: 1
      - {path: figures/, kind: folder, min_files: 1}
      - {path: notes.md, required: false}
    parse_all: true                 # every file found must parse by its type and not be empty
    chat: {required: true, min_messages: 2, final_role: assistant}

Every key is optional; an empty specification checks only that what exists parses and is not
empty. Unknown keys are rejected so that typos do not silently disable a check.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.agents.selector import parse_path
from assay.errors import InvalidInputError, require

#: File types the sanity check can parse, by extension.
TYPES_BY_EXTENSION: dict[str, str] = {
    ".json": "json", ".ipynb": "json", ".geojson": "json",
    ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml",
    ".csv": "csv", ".tsv": "tsv",
    ".pdf": "pdf",
    ".py": "python",
    ".txt": "text", ".md": "text", ".markdown": "text", ".html": "text", ".htm": "text",
    ".rst": "text", ".log": "text", ".xml": "text", ".svg": "text",
}
FILE_TYPES = ("json", "jsonl", "yaml", "toml", "csv", "tsv", "pdf", "python", "text", "any")
VALUE_TYPES = {
    "string": (str,), "number": (int, float), "integer": (int,), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),),
}


def file_type(path: str | os.PathLike[str]) -> str:
    """The type a file is checked as, from its extension (``any``: only non-empty).

    Example:
        >>> file_type("out/report.JSON"), file_type("plot.png")
        ('json', 'any')
    """
    return TYPES_BY_EXTENSION.get(Path(path).suffix.lower(), "any")


def _keys(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown key(s) {unknown}; expected some of {sorted(allowed)}"
        )


def _typed(data: Mapping[str, Any], key: str, types: Any, where: str, default: Any) -> Any:
    value = data.get(key, default)
    if value is not default and (not isinstance(value, types) or
                                 (isinstance(value, bool) and bool not in _tuple(types))):
        raise InvalidInputError(f"{where}: {key!r} must be {_names(types)}; got {value!r}")
    return value


def _rule(
    data: Any, fields: Iterable[str], where: str, what: str
) -> tuple[Mapping[str, Any], str]:
    """A rule's mapping (a bare string stands for its path) and its path, once the path is given
    and every key is one of ``fields``."""
    if isinstance(data, str):
        data = {"path": data}
    if not isinstance(data, Mapping) or "path" not in data:
        raise InvalidInputError(f"{where}: {what} needs a 'path'; got {data!r}")
    _keys(data, set(fields), where)
    return data, _typed(data, "path", str, where, None)


def _tuple(types: Any) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def _names(types: Any) -> str:
    return " or ".join(t.__name__ for t in _tuple(types))


@dataclass(frozen=True)
class FieldRule:
    """A check on the values a field path reaches in a structured file."""

    path: str
    required: bool = True
    non_empty: bool = False
    type: str | None = None
    equals: Any = None
    one_of: tuple[Any, ...] | None = None
    pattern: str | None = None
    min: float | None = None
    max: float | None = None
    min_items: int | None = None

    @classmethod
    def from_dict(cls, data: Any, where: str) -> FieldRule:
        """Build from a mapping, or a bare path string (the field must exist)."""
        data, path = _rule(data, cls.__dataclass_fields__, where, "a field rule")
        parse_path(path)
        kind = _typed(data, "type", str, where, None)
        if kind is not None and kind not in VALUE_TYPES:
            raise InvalidInputError(f"{where}: type must be one of {sorted(VALUE_TYPES)}; "
                                    f"got {kind!r}")
        pattern = _typed(data, "pattern", str, where, None)
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise InvalidInputError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
        one_of = _typed(data, "one_of", list, where, None)
        return cls(
            path=path,
            required=_typed(data, "required", bool, where, True),
            non_empty=_typed(data, "non_empty", bool, where, False),
            type=kind,
            equals=data.get("equals"),
            one_of=tuple(one_of) if one_of is not None else None,
            pattern=pattern,
            min=_typed(data, "min", (int, float), where, None),
            max=_typed(data, "max", (int, float), where, None),
            min_items=_typed(data, "min_items", int, where, None),
        )


@dataclass(frozen=True)
class ArtifactRule:
    """An expected file (or glob of files) or folder."""

    path: str
    kind: str = "file"
    required: bool = True
    type: str | None = None
    non_empty: bool = True
    fields: tuple[FieldRule, ...] = ()
    columns: tuple[str, ...] = ()
    min_rows: int | None = None
    min_pages: int | None = None
    min_files: int | None = None

    @property
    def is_glob(self) -> bool:
        """Whether ``path`` is a pattern that may match several files."""
        return any(c in self.path for c in "*?[")

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ArtifactRule:
        """Build from a mapping, or a bare path string (the file must exist and parse)."""
        data, path = _rule(data, cls.__dataclass_fields__, where, "an artifact rule")
        parts = Path(path).parts
        if Path(path).is_absolute() or ".." in parts:
            raise InvalidInputError(f"{where}: path {path!r} must be relative and stay inside "
                                    "the artifacts folder")
        kind = _typed(data, "kind", str, where, "folder" if path.endswith("/") else "file")
        if kind not in ("file", "folder"):
            raise InvalidInputError(f"{where}: kind must be 'file' or 'folder'; got {kind!r}")
        ftype = _typed(data, "type", str, where, None)
        if ftype is not None and ftype not in FILE_TYPES:
            raise InvalidInputError(f"{where}: type must be one of {list(FILE_TYPES)}; "
                                    f"got {ftype!r}")
        fields = _typed(data, "fields", list, where, [])
        columns = _typed(data, "columns", list, where, [])
        return cls(
            path=path.rstrip("/") or ".",
            kind=kind,
            required=_typed(data, "required", bool, where, True),
            type=ftype,
            non_empty=_typed(data, "non_empty", bool, where, True),
            fields=tuple(FieldRule.from_dict(f, f"{where}.fields[{i}]")
                         for i, f in enumerate(fields)),
            columns=tuple(str(c) for c in columns),
            min_rows=_typed(data, "min_rows", int, where, None),
            min_pages=_typed(data, "min_pages", int, where, None),
            min_files=_typed(data, "min_files", int, where, None),
        )


@dataclass(frozen=True)
class ChatRule:
    """What the chat session must look like."""

    required: bool = False
    min_messages: int = 1
    final_role: str | None = "assistant"
    roles: tuple[str, ...] = ("system", "user", "assistant", "tool", "function", "developer")

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ChatRule:
        """Build from a mapping."""
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"{where}: must be a mapping; got {data!r}")
        _keys(data, {f for f in cls.__dataclass_fields__}, where)
        roles = _typed(data, "roles", list, where, None)
        return cls(
            required=_typed(data, "required", bool, where, False),
            min_messages=_typed(data, "min_messages", int, where, 1),
            final_role=_typed(data, "final_role", (str, type(None)), where, "assistant"),
            roles=tuple(roles) if roles is not None else cls.roles,
        )


@dataclass(frozen=True)
class ArtifactSpec:
    """A declared specification of an agent's artifacts and chat session.

    Example:
        >>> spec = ArtifactSpec.from_dict({"artifacts": ["report.json",
        ...     {"path": "data.csv", "columns": ["id"]}], "chat": {"required": True}})
        >>> [r.path for r in spec.artifacts], spec.chat.required, spec.parse_all
        (['report.json', 'data.csv'], True, True)
    """

    artifacts: tuple[ArtifactRule, ...] = ()
    parse_all: bool = True
    chat: ChatRule = field(default_factory=ChatRule)

    @classmethod
    def from_dict(cls, data: Any, where: str = "spec") -> ArtifactSpec:
        """Build and validate a specification; errors name the offending key."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"{where}: a specification must be a mapping; got "
                                    f"{type(data).__name__}")
        _keys(data, {"artifacts", "parse_all", "chat"}, where)
        rules = _typed(data, "artifacts", list, where, [])
        return cls(
            artifacts=tuple(ArtifactRule.from_dict(r, f"{where}.artifacts[{i}]")
                            for i, r in enumerate(rules)),
            parse_all=_typed(data, "parse_all", bool, where, True),
            chat=ChatRule.from_dict(data.get("chat", {}), f"{where}.chat"),
        )


#: A specification file larger than this is refused before it is read (a suite may name any file).
MAX_SPEC_BYTES = 1_000_000


def load_spec(source: str | os.PathLike[str] | Mapping[str, Any] | ArtifactSpec | None,
              base: Path | None = None, root: Path | None = None) -> ArtifactSpec:
    """A specification from a mapping, an :class:`ArtifactSpec`, or a JSON / YAML / TOML file
    (relative file names are taken from ``base``).

    With ``root`` (always, for a specification named by a suite), the file must resolve inside
    it (:func:`~assay.agents.paths.resolve_inside`), checked before anything touches the file,
    so a refused path never reveals whether it exists; parse errors give the position, never
    the file's content.

    Example:
        >>> load_spec({"artifacts": [{"path": "out/", "min_files": 2}]}).artifacts[0].kind
        'folder'
    """
    if isinstance(source, ArtifactSpec):
        return source
    if source is None or isinstance(source, Mapping):
        return ArtifactSpec.from_dict(source)
    if not isinstance(source, str | os.PathLike):
        raise InvalidInputError("a specification must be a mapping or a file path; got "
                                f"{type(source).__name__}")
    if root is not None:
        from assay.agents.paths import resolve_inside

        path = resolve_inside(source, base or root, root)
    else:
        path = Path(source)
        if not path.is_absolute() and base is not None:
            path = base / path
    if not path.is_file():
        raise InvalidInputError(f"{path}: specification file not found")
    if path.stat().st_size > MAX_SPEC_BYTES:
        raise InvalidInputError(f"{path}: specification file larger than {MAX_SPEC_BYTES} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: the specification is not UTF-8 text (byte "
                                f"{exc.start})") from None
    return ArtifactSpec.from_dict(_parse_spec(text, path), where=str(path))


def _parse_spec(text: str, path: Path) -> Any:
    """The data of a specification file; an error names the position, never the content."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            return tomllib.loads(text)
        if suffix in (".yaml", ".yml"):
            yaml: Any = require("yaml", extra="agents", package="pyyaml")
            try:
                return yaml.safe_load(text)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
                raise InvalidInputError(f"{path}: cannot parse the specification as YAML"
                                        f"{where}") from None
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path}: cannot parse the specification as JSON (line "
                                f"{exc.lineno}, column {exc.colno})") from None
    except tomllib.TOMLDecodeError:
        raise InvalidInputError(f"{path}: cannot parse the specification as TOML") from None
    except (ValueError, RecursionError):
        raise InvalidInputError(f"{path}: cannot parse the specification") from None


