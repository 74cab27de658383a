"""The Ray executor on a small local Ray instance (started once for the module).

Run directories must match the local executor's byte for byte (bar timestamps and timings), model
state must load once per actor, a killed worker must cost neither lost nor duplicated cases, and
judge calls must share one rate limit across workers.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest
from click.testing import CliRunner

import assay
from assay import TestCase
from assay.backends.llm import Judge
from assay.data.suite import TestSuite, write_suite
from assay.engine.executors.ray_executor import RayExecutor, init_ray
from assay.engine.executors.ray_limits import (
    SharedRateLimiter,
    install_limiters,
    judges_of,
    start_limiters,
)
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.evaluators.registry import evaluator_class
from assay.testing import with_test_doubles

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow  # Ray start-up takes seconds (tens on a loaded machine)
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # test classes reach workers


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    if ray.is_initialized():  # pragma: no cover - another module left it running
        ray.shutdown()
    init_ray(num_cpus=2, object_store_memory=100 * 1024 * 1024)
    yield
    ray.shutdown()


def _cases(n: int = 14) -> list[TestCase]:
    out = [
        TestCase(
            id=f"c{i}",
            model="ab"[i % 2],
            question=f"what is {i}?",
            actual_answer=f"the value is {i % 3} units",
            expected_answer=f"the value is {i % 4} units",
            retrieved_context=[f"the value is {i % 4} units", "unrelated text"],
        )
        for i in range(n)
    ]
    out.append(
        TestCase(
            id="c0t",
            model="a",
            actual_answer="teh value is 0 units",
            expected_answer="the value is 0 units",
            parent_id="c0",
            perturbation="typos",
        )
    )
    return out


def _comparable(run_dir: Path) -> dict[str, Any]:
    """Every file of a run directory, with what legitimately differs between runs removed."""
    out: dict[str, Any] = {}
    for path in sorted(run_dir.iterdir()):
        if path.name == "manifest.json":
            manifest = json.loads(path.read_text())
            for key in ("started_at", "finished_at", "timings_s", "stages_s", "executor"):
                manifest.pop(key)
            manifest["files"].pop("report.html")  # carries the generation time
            out[path.name] = manifest
        elif path.name == "report.html":
            lines = path.read_text().splitlines()
            out[path.name] = [ln for ln in lines if "report generated" not in ln]
        else:
            out[path.name] = path.read_bytes()
    return out


class _Crashy(Evaluator):
    """Kills its worker process on the first ``crashes`` attempts at the batch holding a case in
    ``crash_on``; attempts are counted in marker files, as a process restart forgets everything."""

    name = "test_crashy"
    family = "test"
    description = "kills its worker on chosen batches"
    metrics = (MetricSpec("test_crashy_len", "answer length", range=(0.0, 1e9)),)
    requires = ("actual_answer",)

    def __init__(self, marker_dir: str = "", crash_on: Sequence[str] = (), crashes: int = 1):
        self.marker_dir = marker_dir
        self.crash_on = list(crash_on)
        self.crashes = crashes

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        for case in cases:
            if case.id in self.crash_on:
                marker = Path(self.marker_dir) / f"{case.id}.attempts"
                attempts = int(marker.read_text()) if marker.exists() else 0
                marker.write_text(str(attempts + 1))
                if attempts < self.crashes:
                    os._exit(1)  # the worker process dies, mid-batch
        return [CaseResult.ok({"test_crashy_len": len(c.actual_answer or "")}) for c in cases]


class _CountsLoads(Evaluator):
    """Loads a 'model' lazily and records each load's process id in a file."""

    name = "test_counts_loads"
    family = "test"
    description = "records model loads"
    metrics = (MetricSpec("test_loads_len", "answer length", range=(0.0, 1e9)),)
    requires = ("actual_answer",)
    extra: ClassVar[str | None] = "test"  # model-based: runs in the actor pool

    def __init__(self, log: str = "") -> None:
        self.log = log

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        if "_model" not in self.__dict__:
            with open(self.log, "a") as fh:
                fh.write(f"{os.getpid()}\n")
            self.__dict__["_model"] = len
        model = self.__dict__["_model"]
        return [CaseResult.ok({"test_loads_len": model(c.actual_answer or "")}) for c in cases]

    def __getstate__(self) -> dict[str, Any]:
        return {"log": self.log}  # the model never travels


REPRODUCIBLE = ["exact_match", "token_f1", "rouge", "perturbation_robustness"]


@pytest.mark.parametrize("mode", ["tasks", "actors"])
def test_ray_run_directory_matches_local(tmp_path: Path, mode: str) -> None:
    from assay.evaluators.embedding_answer import EmbAnswerSimilarity

    evaluators: list[Any] = [*REPRODUCIBLE, with_test_doubles(EmbAnswerSimilarity)]
    local = assay.evaluate(_cases(), evaluators, out=tmp_path / "local", batch_size=4)
    distributed = assay.evaluate(
        _cases(),
        evaluators,
        out=tmp_path / "ray",
        batch_size=4,
        executor="ray",
        executor_options={"num_workers": 2, "mode": mode},
    )
    assert _comparable(tmp_path / "local") == _comparable(tmp_path / "ray")
    pd.testing.assert_frame_equal(local.results, distributed.results)
    assert distributed.manifest["executor"]["name"] == "ray"
    assert distributed.manifest["executor"]["mode"] == mode


@pytest.mark.parametrize("mode", ["tasks", "actors"])
def test_killed_worker_loses_and_duplicates_nothing(tmp_path: Path, mode: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    local = assay.evaluate(_cases(), [_Crashy()], batch_size=3)
    crashy = _Crashy(str(markers), crash_on=["c4", "c10"])  # batches 1 and 3 die once each
    run = assay.evaluate(
        _cases(),
        [crashy],
        out=tmp_path / "ray",
        batch_size=3,
        executor=RayExecutor(num_workers=2, mode=mode, max_retries=2),
    )
    attempts = {p.name: int(p.read_text()) for p in markers.iterdir()}
    # each chosen batch really died, then ran again; on a loaded machine Ray may start a batch
    # once more (a slow actor restart), which must not change the results below
    assert set(attempts) == {"c4.attempts", "c10.attempts"}
    assert all(n >= 2 for n in attempts.values())
    assert list(run.results["case_id"]) == [c.id for c in _cases()]  # once each, in order
    pd.testing.assert_frame_equal(local.results, run.results)


def test_driver_resubmits_when_rays_own_retries_are_spent(tmp_path: Path) -> None:
    # dies twice; Ray retries once (max_retries=1), the driver's resubmission does the rest
    crashy = _Crashy(str(tmp_path), crash_on=["c7"], crashes=2)
    run = assay.evaluate(
        _cases(), [crashy], batch_size=5, executor=RayExecutor(num_workers=1, max_retries=1)
    )
    assert (tmp_path / "c7.attempts").read_text() == "3"
    assert list(run.results["case_id"]) == [c.id for c in _cases()]


def test_a_batch_that_keeps_killing_workers_fails_the_run(tmp_path: Path) -> None:
    crashy = _Crashy(str(tmp_path), crash_on=["c2"], crashes=5)
    with pytest.raises(ray.exceptions.RayError):
        assay.evaluate(
            _cases(),
            [crashy],
            out=tmp_path / "run",
            batch_size=5,
            executor=RayExecutor(num_workers=1, max_retries=0),
        )
    assert not (tmp_path / "run").exists()  # no half-written run directory


def test_model_loads_once_per_actor_across_batches(tmp_path: Path) -> None:
    log = tmp_path / "loads.txt"
    run = assay.evaluate(
        _cases(), [_CountsLoads(str(log))], batch_size=2, executor=RayExecutor(num_workers=2)
    )
    pids = log.read_text().split()
    assert len(pids) == len(set(pids))  # no process loaded it twice
    assert 1 <= len(pids) <= 2  # at most one load per actor, for 8 batches
    assert run.results["status"].eq("ok").all() and len(run.results) == len(_cases())


def _limited_judge_evaluator(rpm: float) -> Evaluator:
    from assay.backends.llm.scripted import ScriptedJudge

    judge = Judge(ScriptedJudge(), requests_per_minute=rpm, prices={"scripted": (0.0, 0.0)})
    return evaluator_class("judge_qa_accuracy")(judge=judge)


def test_judge_rate_limit_is_shared_by_all_workers() -> None:
    evaluator = _limited_judge_evaluator(rpm=1)  # one request, then one more a minute later
    handles = start_limiters(evaluator, {})
    assert len(handles) == 1

    @ray.remote(num_cpus=1)
    def worker(ev: Evaluator, handles: dict[str, Any]) -> tuple[str, bool]:
        """Whether this worker's first judge request is still waiting for a permit after 3 s."""
        install_limiters(ev, handles)
        limiter = judges_of(ev)[0]._limiter
        waiting = threading.Thread(target=limiter.acquire, daemon=True)
        waiting.start()
        waiting.join(3.0)
        return type(limiter).__name__, waiting.is_alive()

    first = ray.get(worker.remote(evaluator, handles))
    second = ray.get(worker.remote(evaluator, handles))
    # each worker holds its own copy of the judge: with per-worker limiters both would get
    # their (first) request through at once; with the shared one the second must wait
    assert first == ("SharedRateLimiter", False)
    assert second == ("SharedRateLimiter", True)
    for actor in handles.values():
        ray.kill(actor)


def test_judge_evaluator_on_ray_matches_local() -> None:
    local = assay.evaluate(_cases(), [_limited_judge_evaluator(6000)], batch_size=5)
    executor = RayExecutor(num_workers=2)
    run = assay.evaluate(
        _cases(), [_limited_judge_evaluator(6000)], batch_size=5, executor=executor
    )
    pd.testing.assert_frame_equal(local.results, run.results)
    assert len(executor._limiters) == 1  # one shared limiter started for the judge
    executor.close()
    assert not executor._limiters


def test_shared_limiter_is_installed_only_for_limited_judges() -> None:
    unlimited = with_test_doubles(evaluator_class("judge_qa_accuracy"))
    assert start_limiters(unlimited, {}) == {}
    limited = _limited_judge_evaluator(600)
    handles = start_limiters(limited, {})
    assert install_limiters(limited, handles) == 1
    assert isinstance(judges_of(limited)[0]._limiter, SharedRateLimiter)
    ray.kill(next(iter(handles.values())))


def test_cli_runs_on_ray(tmp_path: Path) -> None:
    from assay.cli.main import cli

    suite = tmp_path / "suite.jsonl"
    write_suite(TestSuite(_cases()), suite)
    runner = CliRunner()
    args = ["evaluate", str(suite), "-e", "exact_match,token_f1", "--batch-size", "4"]
    local = runner.invoke(cli, [*args, "--out", str(tmp_path / "local")])
    remote = runner.invoke(
        cli, [*args, "--out", str(tmp_path / "ray"), "--executor", "ray", "--workers", "2"]
    )
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    assert _comparable(tmp_path / "local") == _comparable(tmp_path / "ray")
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert manifest["executor"]["num_workers"] == 2
