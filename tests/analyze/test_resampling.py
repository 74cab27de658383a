"""The shared cluster bootstrap: agreement with SciPy and the per-call bootstrap, coverage,
resampling by parent question, exact pass-rate intervals."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from assay.analyze.ranking import leaderboard_with_ci, pairwise
from assay.analyze.resampling import (
    _CHUNK_CELLS,
    _LEVELS,
    _ROW_BLOCK,
    _TABLE,
    ClusterBootstrap,
    _blas,
    cluster_codes,
    column_codes,
    percentile_interval,
)
from assay.analyze.uncertainty import bootstrap_ci
from assay.analyze.weakness import marginal, weakest_slices


def _interval(values: np.ndarray, clusters: np.ndarray, seed: int = 0) -> tuple[float, float]:
    boot = ClusterBootstrap(int(clusters.max()) + 1, n_resamples=1000, seed=seed)
    low, high = percentile_interval(boot.means(clusters, values), 0.95)
    return float(low[0]), float(high[0])


def _frame(values: np.ndarray, parents: list[str | None], topics: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "case_id": [f"c{i}" for i in range(len(values))],
            "parent_id": parents,
            "model": "m",
            "metric": "acc",
            "status": "ok",
            "value": values,
            "passed": values >= 0.5,
            "topic": topics,
            "query_type": None,
            "perturbation": None,
        }
    )


@pytest.mark.parametrize("n", [40, 400])
def test_independent_cases_agree_with_scipy_percentile_bootstrap(n: int) -> None:
    values = np.random.default_rng(n).beta(2, 5, n)
    ref = stats.bootstrap(
        (values,), np.mean, method="percentile", n_resamples=4000, random_state=1
    ).confidence_interval
    low, high = _interval(values, np.arange(n))
    width = ref.high - ref.low
    assert abs(low - ref.low) < 0.15 * width and abs(high - ref.high) < 0.15 * width


def test_coverage_of_independent_and_clustered_samples() -> None:
    rng = np.random.default_rng(7)
    covered_iid = covered_cluster = covered_naive = 0
    replications = 150
    for i in range(replications):
        iid = rng.beta(2, 5, 60)
        low, high = _interval(iid, np.arange(60), seed=i)
        covered_iid += low <= 2 / 7 <= high
        # 20 questions x 5 variants: a question effect shared by its variants.
        effect = np.repeat(rng.normal(0.0, 0.2, 20), 5)
        clustered = 0.5 + effect + rng.normal(0.0, 0.05, 100)
        groups = np.repeat(np.arange(20), 5)
        low, high = _interval(clustered, groups, seed=i)
        covered_cluster += low <= 0.5 <= high
        low, high = _interval(clustered, np.arange(100), seed=i)
        covered_naive += low <= 0.5 <= high
    assert 0.88 <= covered_iid / replications <= 0.99
    assert 0.85 <= covered_cluster / replications <= 0.99
    # Treating the variants as independent under-covers badly: that is what clusters fix.
    assert covered_naive / replications < 0.75


def test_slice_intervals_agree_with_the_per_slice_bootstrap() -> None:
    rng = np.random.default_rng(3)
    values = np.clip(rng.normal(0.6, 0.2, 600), 0, 1)
    topics = [f"t{i % 4}" for i in range(600)]
    out = marginal(_frame(values, [None] * 600, topics), {"acc": True}, per_model=False)
    for row in out.to_dict("records"):
        mask = np.array(topics) == row["slice"]
        low, high = bootstrap_ci(values[mask], seed=5)
        width = high - low  # type: ignore[operator]
        assert abs(row["ci_low"] - low) < 0.15 * width
        assert abs(row["ci_high"] - high) < 0.15 * width
        assert row["n_clusters"] == row["n"] == 150


def test_variants_of_one_question_are_one_cluster_in_the_weakest_slices() -> None:
    rng = np.random.default_rng(4)
    # 40 good questions on other topics; one 'cors' question and six low-scoring variants of it.
    values = np.concatenate([rng.uniform(0.7, 1.0, 40), [0.1, 0.12, 0.08, 0.1, 0.11, 0.09, 0.1]])
    parents = [None] * 41 + ["c40"] * 6
    topics = [f"t{i % 4}" for i in range(40)] + ["cors"] * 7
    frame = _frame(values, parents, topics)
    out = marginal(frame, {"acc": True}, per_model=False)
    cors = out[out["slice"] == "cors"].iloc[0]
    assert cors["n"] == 7 and cors["n_clusters"] == 1
    assert not cors["significant"]
    message = weakest_slices(out, top=1)[0]["message"]
    assert "(n=7 from 1 question)" in message and "within noise" in message
    # The same values as seven independent questions would be called significant.
    independent = marginal(_frame(values, [None] * 47, topics), {"acc": True}, per_model=False)
    assert bool(independent[independent["slice"] == "cors"].iloc[0]["significant"])


def test_pass_rate_interval_is_exact_clopper_pearson_for_independent_cases() -> None:
    values = np.array([1.0] * 27 + [0.0] * 3)
    frame = _frame(values, [None] * 30, ["t"] * 30)
    row = leaderboard_with_ci(
        [{"model": "m", "metric": "acc", "aggregation": "mean", "value": 0.9}], frame
    )[0]
    exact = stats.binomtest(27, 30).proportion_ci(confidence_level=0.95, method="exact")
    assert row["pass_ci_low"] == pytest.approx(exact.low, abs=1e-9)
    assert row["pass_ci_high"] == pytest.approx(exact.high, abs=1e-9)
    # All pass: the exact interval is not the degenerate bootstrap [1, 1].
    all_pass = _frame(np.ones(30), [None] * 30, ["t"] * 30)
    row = leaderboard_with_ci(
        [{"model": "m", "metric": "acc", "aggregation": "mean", "value": 1.0}], all_pass
    )[0]
    assert row["pass_ci_low"] == pytest.approx(0.025 ** (1 / 30), abs=1e-9)
    assert row["pass_ci_high"] == 1.0


def test_pass_rate_interval_of_shared_parents_is_wider_than_exact() -> None:
    values = np.repeat([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0], 6)
    parents = [None if i % 6 == 0 else f"c{i - i % 6}" for i in range(60)]
    frame = _frame(values, parents, ["t"] * 60)
    row = leaderboard_with_ci(
        [{"model": "m", "metric": "acc", "aggregation": "mean", "value": 0.7}], frame
    )[0]
    exact = stats.binomtest(42, 60).proportion_ci(method="exact")
    assert row["pass_ci_high"] - row["pass_ci_low"] > 1.3 * (exact.high - exact.low)


def test_pairwise_uses_the_cluster_bootstrap_when_cases_share_parents() -> None:
    rng = np.random.default_rng(5)
    frames = []
    for model, shift in (("x", 0.0), ("y", 0.3)):
        values = np.clip(rng.normal(0.5 + shift, 0.1, 30), 0, 1)
        part = _frame(
            values, [None if i % 3 == 0 else f"c{i - i % 3}" for i in range(30)], ["t"] * 30
        )
        frames.append(part.assign(model=model))
    row = pairwise(pd.concat(frames, ignore_index=True), {"acc": True})[0]
    assert row["n_paired"] == 30 and row["n_clusters"] == 10
    assert row["test"] == "paired_bootstrap" and row["winner"] == "y"


def test_cluster_codes_follow_parents() -> None:
    frame = pd.DataFrame({"case_id": ["a", "a~x", "b", "a~y"], "parent_id": [None, "a", None, "a"]})
    assert cluster_codes(frame).tolist() == [0, 0, 1, 0]


def test_same_seed_same_weights_and_rejects_too_few_resamples() -> None:
    every = np.arange(50)
    first = ClusterBootstrap(50, n_resamples=100, seed=3).weights(every)
    assert np.array_equal(first, ClusterBootstrap(50, n_resamples=100, seed=3).weights(every))
    assert abs(float(first.mean()) - 1.0) < 0.05  # Poisson(1) weights
    with pytest.raises(ValueError, match="n_resamples"):
        ClusterBootstrap(5, n_resamples=5)


@pytest.mark.parametrize(("n_clusters", "n_resamples"), [(5, 11), (3_000, 1_000), (10, 10)])
def test_packed_weights_are_the_poisson_table_draws(n_clusters: int, n_resamples: int) -> None:
    # Two weights a byte: unpacked, the same draw as one byte a weight (the same sums follow).
    boot = ClusterBootstrap(n_clusters, n_resamples=n_resamples, seed=3)
    rng = np.random.default_rng(3)
    rows = max(1, _CHUNK_CELLS // n_resamples)
    expected = np.empty((n_clusters, n_resamples), dtype=np.uint8)
    for start in range(0, n_clusters, rows):
        stop = min(n_clusters, start + rows)
        draws = rng.integers(0, _LEVELS, size=(stop - start, n_resamples), dtype=np.uint16)
        expected[start:stop] = _TABLE[draws]
    np.testing.assert_array_equal(boot.weights(np.arange(n_clusters)), expected)
    assert boot._packed.nbytes == n_clusters * ((n_resamples + 1) // 2)


def _bincount_means(
    boot: ClusterBootstrap, clusters: np.ndarray, values: np.ndarray, columns: np.ndarray,
    n_columns: int,
) -> np.ndarray:
    """The resampled means as computed before rows were read in blocks: one ``np.bincount``
    over every row (the reference the block-wise sums must equal bit for bit)."""
    local, inverse = np.unique(clusters, return_inverse=True)
    key = inverse * n_columns + columns
    size = local.size * n_columns
    stacked = np.empty((2 * n_columns, local.size), dtype=np.float32)
    stacked[:n_columns] = np.bincount(key, weights=values, minlength=size).reshape(-1, n_columns).T
    stacked[n_columns:] = np.bincount(key, minlength=size).reshape(-1, n_columns).T
    totals = np.zeros((2 * n_columns, boot.n_resamples))
    step = max(1, _CHUNK_CELLS // boot.n_resamples)
    # One BLAS thread, as ``means`` multiplies: how a multi-threaded float32 product splits
    # its sums depends on the OpenBLAS release (0.3.31 moves the last digit), not on the rows.
    with _blas().limit(limits=1, user_api="blas"):
        for start in range(0, local.size, step):
            totals += stacked[:, start : start + step] @ boot.weights(local[start : start + step])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (totals[:n_columns] / totals[n_columns:]).T


def test_means_of_selected_rows_equal_one_bincount_over_a_copy_bit_for_bit() -> None:
    # More rows than a block, values whose float sums depend on their order.
    rng = np.random.default_rng(5)
    n = 3 * _ROW_BLOCK + 17
    clusters = rng.integers(0, 4_000, n).astype(np.int32)
    values = rng.random(n) * 1e3
    columns = rng.integers(0, 3, n).astype(np.int8)
    boot = ClusterBootstrap(4_000, n_resamples=200, seed=1)
    rows = np.flatnonzero(rng.random(n) < 0.7)
    expected = _bincount_means(boot, clusters[rows], values[rows], columns[rows], 3)
    got = boot.means(clusters, values, columns, 3, rows=rows)
    np.testing.assert_array_equal(got, expected)
    whole = boot.means(clusters, values, columns, 3)
    np.testing.assert_array_equal(whole, _bincount_means(boot, clusters, values, columns, 3))


def test_means_of_many_rows_hold_a_block_of_them_not_a_copy() -> None:
    # 2 M rows of 2,000 clusters: copies of the rows' keys, clusters and values would be tens
    # of MB; the sums per cluster x column and a block of keys are a few.
    rng = np.random.default_rng(0)
    n = 2_000_000
    clusters = rng.integers(0, 2_000, n).astype(np.int32)
    values = rng.random(n)
    columns = (np.arange(n) % 4).astype(np.int8)
    rows = np.arange(0, n, 2)
    boot = ClusterBootstrap(2_000, n_resamples=100, seed=0)
    tracemalloc.start()
    try:
        boot.means(clusters, values, columns, 4, rows=rows)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, peak  # a copy of the selected rows' values alone is 8 MB


def test_interval_of_a_constant_column_is_its_value() -> None:
    boot = ClusterBootstrap(100, n_resamples=200, seed=0)
    values = np.r_[np.full(50, 0.1 + 0.2), np.linspace(0, 1, 50)]
    low, high = boot.interval(np.arange(100), values, 0.95, np.repeat([0, 1], 50), 2)
    assert low[0] == high[0] == 0.1 + 0.2
    assert low[1] < 0.5 < high[1]


def test_column_codes_are_those_of_factorize_on_the_selected_rows() -> None:
    column = pd.Series(pd.Categorical(["b", "a", None, "c", "a", "b"]))
    rows = np.array([4, 2, 0, 5])
    codes, names = column_codes(column, rows)
    expected, expected_names = pd.factorize(column.iloc[rows])
    assert codes[rows].tolist() == expected.tolist()
    assert names.tolist() == expected_names.tolist()
    plain, plain_names = column_codes(column.astype(object), rows)
    assert plain[rows].tolist() == expected.tolist() and plain_names.tolist() == ["a", "b"]
