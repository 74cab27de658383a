"""The pipeline composes, the engine only scores; prefetching is a hook evaluators declare."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import assay
import assay.engine
from assay import TestCase
from assay.errors import IncompleteRunError
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Prefetch
from assay.rundir import MANIFEST_FILE, RESULTS_FILE, load_run

CALLS: list[tuple[str, list[str], int]] = []


def _record(
    evaluators: Sequence[Evaluator],
    cases: Sequence[TestCase],
    *,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    CALLS.append(("warm", sorted(e.name for e in evaluators), len(cases)))
    if progress is not None:
        progress(len(cases), len(cases))
    return len(cases)


WARM = Prefetch("warm", _record)


class _Warmed(Evaluator):
    name = "warmed_a"
    family = "test"
    description = "declares the shared 'warm' step"
    metrics = (MetricSpec("warmed_a", "always 1", primary=True),)

    def prefetch(self) -> Prefetch:
        return WARM

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return [CaseResult.ok({self.metrics[0].name: 1.0}) for _ in cases]


class _WarmedB(_Warmed):
    name = "warmed_b"
    metrics = (MetricSpec("warmed_b", "always 1", primary=True),)


def test_declared_prefetch_runs_once_for_every_evaluator_sharing_it() -> None:
    CALLS.clear()
    cases = [TestCase(id=str(i), actual_answer="x") for i in range(3)]
    steps: list[str] = []
    run = assay.evaluate(
        cases,
        [_Warmed(), _WarmedB(), "exact_match"],
        progress=lambda name, done, total: steps.append(name),
    )
    assert CALLS == [("warm", ["warmed_a", "warmed_b"], 3)]
    assert "warm" in run.manifest["timings_s"]
    assert steps[0] == "warm"


def test_engine_imports_no_layer_above_it() -> None:
    """Every import in assay.engine (module level or inside a function) stays below it."""
    above = ("assay.analyze", "assay.report", "assay.calibrate", "assay.pipeline", "assay.cli")
    engine = Path(assay.engine.__file__).parent
    found = []
    for path in sorted(engine.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            found += [f"{path.name}: {n}" for n in names if n.startswith(above)]
    assert found == []


def _complete_run(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assay.evaluate([TestCase(id="1", actual_answer="a", expected_answer="a")], ["exact_match"],
                   out=out)  # fmt: skip
    return out


def test_a_changed_data_file_is_refused_by_name(tmp_path: Path) -> None:
    out = _complete_run(tmp_path)
    with (out / "leaderboard.json").open("a", encoding="utf-8") as handle:
        handle.write(" ")
    with pytest.raises(IncompleteRunError, match=r"leaderboard\.json: changed"):
        load_run(out)


def test_a_missing_data_file_is_refused_by_name(tmp_path: Path) -> None:
    out = _complete_run(tmp_path)
    (out / RESULTS_FILE).unlink()
    with pytest.raises(IncompleteRunError, match=r"results\.parquet is missing"):
        load_run(out)


def test_a_partial_manifest_is_refused(tmp_path: Path) -> None:
    out = _complete_run(tmp_path)
    manifest = json.loads((out / MANIFEST_FILE).read_text(encoding="utf-8"))
    (out / MANIFEST_FILE).write_text(json.dumps({**manifest, "status": "partial"}))
    with pytest.raises(IncompleteRunError, match="not complete"):
        load_run(out)


def test_a_rebuilt_report_keeps_the_run_loadable(tmp_path: Path) -> None:
    out = _complete_run(tmp_path)
    (out / "report.md").unlink()  # rendered reports are rebuilt, not verified
    assert load_run(out).leaderboard[0]["value"] == 1.0
