"""The agent sanity check: every artifact of a case against a declared specification.

An *artifact* is each file the agent produced, each expected file or folder of the
specification, and the chat session. Each is checked (present, parses by its type, not empty,
matches its rule) and the case's score is the share of artifacts meeting the standard. No model,
no judge: the same inputs always give the same report.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from assay.agents.checks import chat_problems, rule_problems
from assay.agents.parsers import parse_file
from assay.agents.paths import resolve_inside
from assay.agents.spec import ArtifactRule, ArtifactSpec, file_type
from assay.errors import InvalidInputError


@dataclass
class ArtifactCheck:
    """The verdict on one artifact (``name`` is relative to the artifacts folder)."""

    name: str
    kind: str  # file, folder, missing, chat
    ok: bool
    problems: list[str] = field(default_factory=list)
    type: str | None = None
    rule: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class SanityReport:
    """Every artifact checked for one case."""

    checks: list[ArtifactCheck] = field(default_factory=list)
    truncated: bool = False

    @property
    def score(self) -> float | None:
        """Share of artifacts meeting the standard (None when there is nothing to check)."""
        return sum(c.ok for c in self.checks) / len(self.checks) if self.checks else None

    @property
    def failing(self) -> list[ArtifactCheck]:
        """The artifacts that do not meet the standard."""
        return [c for c in self.checks if not c.ok]

    def summary(self) -> str:
        """One line naming each failing artifact and why."""
        ok = sum(c.ok for c in self.checks)
        head = f"{ok}/{len(self.checks)} artifacts meet the specification"
        if not self.failing:
            return head
        parts = [f"{c.name}: {'; '.join(c.problems[:2])}" for c in self.failing[:5]]
        more = f" (+{len(self.failing) - 5} more)" if len(self.failing) > 5 else ""
        return f"{head}; failing: " + " | ".join(parts) + more

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"score": self.score, "truncated": self.truncated,
                "artifacts": [asdict(c) for c in self.checks]}


def _walk(folder: Path, max_files: int) -> Iterator[Path]:
    count = 0
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            count += 1
            if count > max_files:
                return
            yield Path(current) / name


def _matches(rule: ArtifactRule, name: str) -> bool:
    return fnmatch.fnmatchcase(name, rule.path) if rule.is_glob else name == rule.path


def check_artifacts(
    entries: Sequence[str | os.PathLike[str]],
    spec: ArtifactSpec,
    *,
    base: Path,
    root: Path,
    chat: Any = None,
    max_files: int = 10_000,
) -> SanityReport:
    """Check a case's artifacts and chat session against ``spec``.

    ``entries`` are the case's artifact paths (a single folder, or files and folders), resolved
    against ``base`` and refused when outside ``root``. Rule paths are relative to the folder
    when there is a single folder entry, else to ``base``.

    Example:
        >>> import tempfile, json
        >>> out = Path(tempfile.mkdtemp()).resolve()
        >>> _ = (out / "report.json").write_text(json.dumps({"title": ""}))
        >>> _ = (out / "data.csv").write_text("id,value\\n1,2\\n")
        >>> spec = ArtifactSpec.from_dict({"artifacts": [
        ...     {"path": "report.json", "fields": [{"path": "title", "non_empty": True}]},
        ...     "summary.md"]})
        >>> report = check_artifacts([str(out)], spec, base=out, root=out)
        >>> report.score, [(c.name, c.problems) for c in report.failing]
        (0.3333333333333333, [('report.json', ['field title is empty']), \
('summary.md', ['expected file is missing'])])
    """
    report = SanityReport()
    folder: Path | None = None
    files: dict[str, Path] = {}
    resolved: list[Path] = []
    for entry in entries:
        try:
            path = resolve_inside(entry, base, root)
        except InvalidInputError as exc:
            report.checks.append(ArtifactCheck(os.fspath(entry), "refused", False, [str(exc)]))
            continue
        if not path.exists():
            report.checks.append(ArtifactCheck(os.fspath(entry), "missing", False,
                                               ["listed artifact does not exist"]))
            continue
        resolved.append(path)
    if len(resolved) == 1 and resolved[0].is_dir() and len(entries) == 1:
        folder = resolved[0]
    anchor = folder or base.resolve()
    for path in resolved:
        found = _walk(path, max_files) if path.is_dir() else iter([path])
        for file in found:
            try:
                real = resolve_inside(file, anchor, root)
            except InvalidInputError as exc:
                report.checks.append(ArtifactCheck(_rel(file, anchor), "refused", False,
                                                   [str(exc)]))
                continue
            files.setdefault(_rel(file, anchor), real)
            if len(files) >= max_files:
                report.truncated = True
                break

    file_rules = [r for r in spec.artifacts if r.kind == "file"]
    for name, path in files.items():
        rule = next((r for r in file_rules if _matches(r, name)), None)
        if rule is None and not spec.parse_all:
            continue
        ftype = (rule.type if rule and rule.type else file_type(name))
        parsed = parse_file(path, ftype)
        problems = list(parsed.problems)
        if rule is not None and not rule.non_empty:
            problems = [p for p in problems if "empty" not in p]
        if rule is not None:
            problems += rule_problems(rule, parsed)
        report.checks.append(ArtifactCheck(name, "file", not problems, problems, ftype,
                                           rule.path if rule else None, parsed.notes))

    for rule in file_rules:
        if rule.required and not any(_matches(rule, n) for n in files):
            reason = "no file matches this pattern" if rule.is_glob else "expected file is missing"
            report.checks.append(ArtifactCheck(rule.path, "missing", False, [reason],
                                               rule.type, rule.path))
    for rule in (r for r in spec.artifacts if r.kind == "folder"):
        report.checks.append(_folder_check(rule, anchor, root, files))

    if chat is not None or spec.chat.required:
        problems = ["no chat session recorded"] if chat is None \
            else chat_problems(chat, spec.chat)
        report.checks.append(ArtifactCheck("chat", "chat", not problems, problems))
    return report


def _rel(path: Path, anchor: Path) -> str:
    try:
        return path.relative_to(anchor).as_posix()
    except ValueError:
        return path.as_posix()


def _folder_check(rule: ArtifactRule, anchor: Path, root: Path,
                  files: dict[str, Path]) -> ArtifactCheck:
    try:
        path = resolve_inside(rule.path, anchor, root)
    except InvalidInputError as exc:
        return ArtifactCheck(rule.path + "/", "folder", False, [str(exc)], rule=rule.path)
    if not path.is_dir():
        ok = not rule.required
        return ArtifactCheck(rule.path + "/", "folder", ok,
                             [] if ok else ["expected folder is missing"], rule=rule.path)
    prefix = "" if rule.path == "." else rule.path + "/"
    inside = [n for n in files if n.startswith(prefix)]
    problems: list[str] = []
    if rule.non_empty and not inside:
        problems.append("the folder is empty")
    if rule.min_files is not None and len(inside) < rule.min_files:
        problems.append(f"{len(inside)} file(s); at least {rule.min_files} expected")
    return ArtifactCheck(rule.path + "/", "folder", not problems, problems, rule=rule.path)
