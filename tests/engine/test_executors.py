"""Executors without Ray: the protocol, name resolution and evaluate() going through them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import assay
from assay import TestCase
from assay.engine.executors import Executor, LocalExecutor, get_executor, open_executor
from assay.errors import InvalidInputError
from assay.evaluators.base import CaseResult, Evaluator


def _cases(n: int = 10) -> list[TestCase]:
    return [
        TestCase(
            id=f"c{i}",
            model="ab"[i % 2],
            actual_answer=f"the answer is {i % 3}",
            expected_answer=f"the answer is {i % 4}",
        )
        for i in range(n)
    ]


class _ShuffledExecutor:
    """Evaluates batches last-first (as a parallel executor may finish them) and records the
    order; yields them in batch order as the protocol demands."""

    name = "shuffled"

    def __init__(self) -> None:
        self.computed: list[int] = []
        self.started = self.closed = 0

    def start(self) -> None:
        self.started += 1

    def map_batches(
        self, evaluator: Evaluator, batches: Iterable[list[TestCase]]
    ) -> Iterator[tuple[int, list[TestCase], list[CaseResult]]]:
        items = list(enumerate(batches))
        done = {}
        for index, batch in reversed(items):
            self.computed.append(index)
            done[index] = evaluator.evaluate(batch)
        for index, batch in items:
            yield index, batch, done[index]

    def close(self) -> None:
        self.closed += 1

    def describe(self) -> dict[str, Any]:
        return {"name": self.name}


def test_local_executor_yields_every_batch_in_order() -> None:
    batches = [_cases(10)[i : i + 3] for i in range(0, 10, 3)]
    out = list(LocalExecutor().map_batches(assay.get_evaluator("exact_match"), batches))
    assert [i for i, _, _ in out] == [0, 1, 2, 3]
    assert [b for _, b, _ in out] == batches
    assert [len(r) for _, _, r in out] == [3, 3, 3, 1]


def test_get_executor_resolves_names_and_rejects_bad_input() -> None:
    assert isinstance(get_executor("local"), LocalExecutor)
    assert get_executor("ray", num_workers=3).describe()["num_workers"] == 3
    custom = _ShuffledExecutor()
    assert get_executor(custom) is custom
    assert isinstance(custom, Executor)
    with pytest.raises(InvalidInputError, match=r"(?i)unknown executor"):
        get_executor("dask")
    with pytest.raises(InvalidInputError, match="takes no options"):
        get_executor("local", address="auto")
    with pytest.raises(InvalidInputError, match="with an executor name"):
        get_executor(custom, num_workers=2)
    with pytest.raises(InvalidInputError, match="mode"):
        get_executor("ray", mode="threads")


def test_open_executor_closes_only_what_it_built() -> None:
    custom = _ShuffledExecutor()
    with open_executor(custom) as ex:
        assert ex is custom
    assert (custom.started, custom.closed) == (1, 0)  # the caller owns it


def test_evaluate_through_a_custom_executor_writes_the_same_run(tmp_path: Path) -> None:
    names = ["exact_match", "token_f1", "perturbation_robustness"]
    local = assay.evaluate(_cases(), names, out=tmp_path / "local", batch_size=3)
    custom = _ShuffledExecutor()
    other = assay.evaluate(_cases(), names, out=tmp_path / "other", batch_size=3, executor=custom)
    assert custom.computed[:4] == [3, 2, 1, 0]  # really computed out of order
    pd.testing.assert_frame_equal(local.results, other.results)
    assert local.leaderboard == other.leaderboard
    for name in ("results.parquet", "results.csv", "leaderboard.json", "problems.json"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "other" / name).read_bytes()
    assert local.manifest["executor"] == {"name": "local"}
    assert other.manifest["executor"] == {"name": "shuffled"}


def test_evaluate_rejects_an_unknown_executor_before_writing(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"(?i)unknown executor"):
        assay.evaluate(_cases(), ["exact_match"], out=tmp_path / "run", executor="spark")
    assert not (tmp_path / "run").exists()
    assert not list(tmp_path.iterdir())  # the partial directory was discarded
