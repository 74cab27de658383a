"""Agent sanity check: the artifacts and chat session of an agent against a declared spec.

Reproducible and judge-free. Where the artifacts live on a case, how paths are resolved and the
specification format are described in :mod:`assay.agents.paths`, :mod:`assay.agents.spec` and
docs/agents.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.evaluators.registry import register
from assay.params import check, check_int


@register
class AgentSanity(Evaluator):
    """Checks every artifact of a case (``metadata["artifacts"]``: a folder or a list of paths)
    and its chat session (``metadata["chat"]``) against a specification: expected files and
    folders present, files parse by type (JSON, JSON lines, YAML, TOML, CSV/TSV, PDF pages with
    text, Python syntax), nothing empty, fields and values as declared.

    Args:
        artifact_spec: The specification (a mapping, an
            :class:`~assay.agents.spec.ArtifactSpec`, or a JSON / YAML / TOML file); a case's
            ``metadata["artifact_spec"]`` overrides it. None checks only that what exists
            parses and is not empty.
        base_dir: Folder that relative artifact paths (and a relative spec file) are resolved
            against: the suite file's folder by convention; None means the working directory.
        allowed_root: No artifact may resolve (symbolic links followed) outside this folder;
            None means ``base_dir``.
        max_files: At most this many files are checked per case (the rest reported as truncated).

    Example:
        >>> import json, tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "out").mkdir()
        >>> _ = (root / "out" / "answer.json").write_text(json.dumps({"answer": "42"}))
        >>> case = TestCase(id="a", metadata={"artifacts": "out", "chat": [
        ...     {"role": "user", "content": "Go"}, {"role": "assistant", "content": "Done."}]})
        >>> spec = {"artifacts": [{"path": "answer.json", "fields": ["answer"]}, "log.txt"]}
        >>> ev = AgentSanity(artifact_spec=spec, base_dir=str(root))
        >>> result = ev.evaluate([case])[0]
        >>> result.outcomes["agent_sanity"].value, result.explanation
        (0.6666666666666666, '2/3 artifacts meet the specification; failing: log.txt: expected \
file is missing')
    """

    name = "agent_sanity"
    family = "agent"
    description = (
        "Share of an agent's artifacts (files, expected files and folders, chat session) that "
        "are present, parse by type, are not empty and match the declared specification."
    )
    metrics = (
        MetricSpec("agent_sanity", "share of artifacts meeting the specification",
                   threshold=1.0, primary=True),
        MetricSpec.count("agent_failing_artifacts", "number of artifacts failing the specification",
                         threshold=0.0),
    )
    reproducible = True
    extra = None

    def __init__(self, artifact_spec: Any = None, base_dir: str | None = None,
                 allowed_root: str | None = None, max_files: int = 10_000) -> None:
        where = type(self).__name__
        check(artifact_spec is None or isinstance(artifact_spec, str | os.PathLike | Mapping)
              or type(artifact_spec).__name__ == "ArtifactSpec", "artifact_spec", where,
              "None, a mapping, an ArtifactSpec or a specification file path", artifact_spec)
        check_int(max_files, "max_files", where)
        self.artifact_spec = artifact_spec
        self.base_dir = base_dir
        self.allowed_root = allowed_root
        self.max_files = max_files
        if artifact_spec is not None:
            self._load(artifact_spec)  # fail early on a malformed specification

    def _base(self) -> Path:
        return Path(self.base_dir).resolve() if self.base_dir else Path.cwd().resolve()

    def _load(self, spec: Any) -> Any:
        from assay.agents.spec import load_spec

        return load_spec(spec, self._base())

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        from assay.agents.paths import artifact_paths
        from assay.agents.sanity import check_artifacts
        from assay.agents.spec import load_spec

        base = self._base()
        root = Path(self.allowed_root).resolve() if self.allowed_root else base
        default = self._load(self.artifact_spec)
        results: list[CaseResult] = []
        for case in cases:
            meta = case.metadata
            if "artifacts" not in meta and "chat" not in meta and "artifact_spec" not in meta:
                results.append(CaseResult.skipped(self.metric_names(),
                                                  "no metadata.artifacts or metadata.chat"))
                continue
            try:
                spec = (load_spec(meta["artifact_spec"], base, root)  # a suite names it: guarded
                        if "artifact_spec" in meta else default)
                entries = artifact_paths(meta["artifacts"]) if "artifacts" in meta else []
            except InvalidInputError as exc:
                results.append(CaseResult.error(self.metric_names(), f"case {case.id}: {exc}"))
                continue
            report = check_artifacts(entries, spec, base=base, root=root,
                                     chat=meta.get("chat"), max_files=self.max_files)
            if report.score is None:
                results.append(CaseResult.skipped(self.metric_names(),
                                                  "no artifacts found and none expected"))
                continue
            results.append(CaseResult.ok(
                {"agent_sanity": report.score,
                 "agent_failing_artifacts": float(len(report.failing))},
                report.summary(), report.to_dict()))
        return results
