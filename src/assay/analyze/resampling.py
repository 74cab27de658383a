"""One shared cluster bootstrap for a whole analysis: weights drawn once, reused everywhere.

Every interval of a run's analysis (leaderboard means, weakness slices, pairwise differences) is a
statistic of the same cases. Drawing fresh resamples for each slice × metric × scope cost 55 % of
an evaluate run (issue 23); here one matrix of resampling weights — one column per *cluster*, one
row per resample — is drawn once and every statistic is a weighted mean under those weights, a
matrix product vectorised over metrics.

Clusters (issue 24, item 7): a perturbed child or an attack variant repeats its parent question,
so the cases of one parent are not independent; nor are the k samples of one case (``assay run
--repeats``). Every case belongs to the cluster of its question (``parent_id``, else
``sample_of``, else its own ``case_id``) and resampling draws clusters, not cases (the cluster
bootstrap). Without shared parents each case is its own cluster and this is the
ordinary bootstrap.

Weights are Poisson(1) per cluster (the Poisson bootstrap: Hanley & MacGibbon 2006; Chamandy et
al. 2012): unlike multinomial resampling of a fixed size, the weights of a subset of clusters are
themselves a valid bootstrap of that subset, so one draw serves every slice. A resample that gives
a slice zero total weight carries no information about it and is left out of that slice's
quantiles.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import NDArray
from threadpoolctl import ThreadpoolController

from assay.analyze.uncertainty import bootstrap_p_value
from assay.params import check_int

_CHUNK_CELLS = 4_000_000  # weights converted to float per block (bounds memory at ~16 MB)
_LEVELS = 1 << 16
#: A ``category`` column of at most this many categories is grouped by one scan per category
#: (no sorted copy of its rows).
FEW_CATEGORIES = 64
_ROW_BLOCK = 1 << 17  # rows read at a time by ClusterBootstrap.means (a few MB of keys)


def _poisson_table() -> NDArray[np.uint8]:
    """Poisson(1) quantile of each of 2**16 equally likely 16-bit draws.

    A table lookup on uniform 16-bit integers is ~15x faster than ``Generator.poisson`` for the
    million-weight matrices of a large run; each probability is off by at most 2**-16, far below
    the Monte-Carlo error of 1,000 resamples.
    """
    cdf = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(30)])
    centres = (np.arange(_LEVELS) + 0.5) / _LEVELS
    return np.searchsorted(cdf, centres).astype(np.uint8)


_TABLE = _poisson_table()


@functools.cache
def _blas() -> ThreadpoolController:
    """The process's thread pools, inspected once (inspection reads shared-library maps)."""
    return ThreadpoolController()


def cluster_keys(results: pd.DataFrame) -> pd.Series:
    """Each row's cluster, its question: ``parent_id`` when set, else ``sample_of`` (the case a
    repeated sample answers), else ``case_id`` (else its position); see
    :func:`assay.data.samples.question_of`.

    Example:
        >>> frame = pd.DataFrame({"case_id": ["q1", "q1~typo", "q2#sample1", "q2#sample2"],
        ...                       "parent_id": [None, "q1", "", None],
        ...                       "sample_of": [None, None, "q2", "q2"]})
        >>> cluster_keys(frame).tolist()
        ['q1', 'q1', 'q2', 'q2']
    """
    if "case_id" not in results:
        return pd.Series(np.arange(len(results)).astype(str), index=results.index)
    keys = results["case_id"].astype(str)
    for column in ("sample_of", "parent_id"):  # the later wins
        if column in results:
            links = results[column]
            linked = links.notna() & (links.astype(str) != "")
            keys = keys.where(~linked, links.astype(str))
    return keys


#: Column of :func:`~assay.analyze.weakness.measured` tables holding each row's cluster code.
CLUSTER = "cluster"
#: ``attrs`` key of an analysis table: the number of clusters of the whole run, when the
#: table holds some of its metrics (:func:`assay.analyze.table.analysis_tables`).
N_CLUSTERS = "assay_n_clusters"


def cluster_codes(results: pd.DataFrame) -> NDArray[np.int32]:
    """Integer codes ``0 .. k - 1`` of the rows' clusters (see :func:`cluster_keys`), in order
    of first appearance; ``int32``, half the memory of a 1.8 M-row column of ``intp``.
    Coded a block of rows at a time by :class:`ClusterCoder` (no key per row of the table)."""
    if "case_id" not in results:  # each row is its own cluster (see cluster_keys)
        return np.arange(len(results), dtype=np.int32)
    coder = ClusterCoder()
    out = np.empty(len(results), dtype=np.int32)
    columns = [results.get(c) for c in ("case_id", "sample_of", "parent_id")]
    for part in _row_blocks(len(results), None):
        out[part] = coder.codes(*(None if c is None else _as_arrow(c.iloc[part]) for c in columns))
    return out


def _as_arrow(values: pd.Series) -> pa.Array:
    """An id column as the text :func:`cluster_keys` reads: a ``category`` column as a
    dictionary array (no string per row), any other as ``str`` (missing values null)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.cat.codes.to_numpy()
        names = pa.array(values.cat.categories.astype(str).to_numpy(dtype=object), pa.string())
        return pa.DictionaryArray.from_arrays(pa.array(codes, mask=codes < 0), names)
    return pa.array(values.astype(str).to_numpy(dtype=object), pa.string(),
                    mask=values.isna().to_numpy())


class ClusterCoder:
    """The cluster codes of :func:`cluster_codes`, assigned a batch of rows at a time: the
    codes of all batches in order equal ``pd.factorize`` of every row's key at once (codes in
    order of first appearance), without holding a key per row (issue 48: the keys of 27.5 M
    measured rows were several 220 MB arrays at 1,000,000 cases).

    Each distinct key text gets an id once; a batch's keys are ids, and the ids first seen in
    it take the next codes in their order of first appearance (``pd.unique``).

    Example:
        >>> coder = ClusterCoder()
        >>> coder.codes(pa.array(["q1", "q1~t"]), None, pa.array([None, "q1"])).tolist()
        [0, 0]
        >>> coder.codes(pa.array(["q2", "q1"]), None, None).tolist()
        [1, 0]
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._code = np.empty(0, dtype=np.int32)  # key id -> cluster code (-1: not seen)
        self.n_clusters = 0

    def codes(
        self, case_id: pa.Array | None, sample_of: pa.Array | None, parent_id: pa.Array | None
    ) -> NDArray[np.int32]:
        """The cluster code of each row of a batch: its ``parent_id`` when set, else its
        ``sample_of``, else its ``case_id`` (text or dictionary arrays; missing and empty links
        do not count)."""
        if case_id is None:
            raise ValueError("cluster codes need the case ids")
        keys = self._key_ids(case_id, link=False)
        for links in (sample_of, parent_id):  # the later wins
            if links is not None:
                linked = self._key_ids(links, link=True)
                keys = np.where(linked >= 0, linked, keys)
        if len(self._ids) > self._code.size:
            grown = np.full(max(len(self._ids), 2 * self._code.size), -1, dtype=np.int32)
            grown[: self._code.size] = self._code
            self._code = grown
        seen = pd.unique(keys)
        new = seen[self._code[seen] < 0]
        self._code[new] = np.arange(self.n_clusters, self.n_clusters + new.size, dtype=np.int32)
        self.n_clusters += int(new.size)
        return self._code[keys]

    def _key_ids(self, column: pa.Array, *, link: bool) -> NDArray[np.int64]:
        """The id of each row's text: a missing or empty link is -1, a missing case id reads
        as ``"nan"`` (the text ``astype(str)`` gives it in :func:`cluster_keys`)."""
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        texts = column.dictionary.to_pylist()
        ids = [-1 if link and not text else self._id(text) for text in texts]
        missing = -1 if link or column.null_count == 0 else self._id("nan")
        lookup = np.array([*ids, missing], dtype=np.int64)
        return lookup[column.indices.fill_null(len(texts)).to_numpy()]

    def _id(self, text: str) -> int:
        return self._ids.setdefault(text, len(self._ids))


def column_codes(
    column: pd.Series, rows: NDArray[np.intp] | None = None
) -> tuple[NDArray[np.integer], pd.Index]:
    """``pd.factorize`` of the values of ``column`` at ``rows`` (default: all), as codes for
    every row of the column (those outside ``rows`` are meaningless), to pass with ``rows`` to
    :meth:`ClusterBootstrap.means`. A ``category`` column is recoded, one small integer per
    row, instead of factorising a copy of the selected rows.

    Example:
        >>> column = pd.Series(pd.Categorical(["b", "a", "b", "c"]))
        >>> codes, names = column_codes(column, np.array([2, 1]))
        >>> codes[[2, 1]].tolist(), names.tolist()
        ([0, 1], ['b', 'a'])
    """
    if not isinstance(column.dtype, pd.CategoricalDtype):
        chosen, names = pd.factorize(column if rows is None else column.iloc[rows])
        if rows is None:
            return chosen, names
        codes = np.full(len(column), -1, dtype=np.intp)
        codes[rows] = chosen
        return codes, names
    categories = column.cat.categories
    cat = column.cat.codes.to_numpy()
    chosen = cat if rows is None else cat[rows]
    if len(categories) <= FEW_CATEGORIES:  # first appearances by a scan per category
        present = present_codes(chosen, len(categories))
        seen = present[np.argsort([np.argmax(chosen == code) for code in present])]
        kind: type[np.integer] = np.int8  # a byte a row (the metric of 4 M rows: 4 MB, not 16)
    else:
        seen = pd.unique(chosen)
        seen = seen[seen >= 0]  # missing values (code -1) have no code, as in pd.factorize
        kind = np.int32
    remap = np.full(len(categories) + 1, -1, dtype=kind)  # code -1 takes the last entry
    remap[seen] = np.arange(len(seen), dtype=kind)
    return remap[cat], categories[seen]


def present_codes(codes: NDArray[np.integer], n: int) -> NDArray[np.intp]:
    """The codes ``0 .. n - 1`` present in ``codes`` (``-1``, missing, left out), ascending.

    Marked in ``n + 1`` flags: ``np.bincount`` would first copy a column of 1-byte codes into
    8-byte integers (26 MB for 3.3 M rows).

    Example:
        >>> present_codes(np.array([2, -1, 0, 2], dtype=np.int8), 4).tolist()
        [0, 2]
    """
    mark = np.zeros(n + 1, dtype=bool)
    mark[codes] = True  # code -1 marks the extra last flag
    return np.flatnonzero(mark[:n])


def code_positions(codes: NDArray[np.integer], code: int) -> NDArray[np.int32]:
    """The positions of the rows whose code is ``code``, ascending, as ``int32`` (a table of
    2**31 rows or more: ``intp``). Found a block of rows at a time: ``np.flatnonzero(codes ==
    code)`` held a flag a row and 8 bytes a found row (a slice of 16 M rows at 1,000,000 cases:
    130 MB), these 4.

    Example:
        >>> code_positions(np.array([2, 0, 2], dtype=np.int8), 2).tolist()
        [0, 2]
    """
    kind = np.int32 if codes.size < 2**31 else np.intp
    parts = [np.flatnonzero(codes[start : start + _ROW_BLOCK] == code).astype(kind) + start
             for start in range(0, codes.size, _ROW_BLOCK)]
    return np.concatenate(parts) if parts else np.empty(0, dtype=kind)


class ClusterBootstrap:
    """Poisson(1) weights for ``n_clusters`` clusters in ``n_resamples`` resamples, drawn once.

    Args:
        n_clusters: number of clusters (codes ``0 .. n_clusters - 1``).
        n_resamples: number of resamples (rows of the weight matrix).
        seed: seed of the draw; the same seed gives the same weights.

    Example:
        >>> boot = ClusterBootstrap(4, n_resamples=200, seed=0)
        >>> means = boot.means(np.array([0, 1, 2, 3]), np.array([0.0, 1.0, 0.0, 1.0]))
        >>> means.shape, 0.0 <= float(np.nanmin(means)) <= float(np.nanmax(means)) <= 1.0
        ((200, 1), True)
    """

    def __init__(self, n_clusters: int, *, n_resamples: int, seed: int = 0) -> None:
        check_int(n_clusters, "n_clusters", "ClusterBootstrap", minimum=0)
        check_int(n_resamples, "n_resamples", "ClusterBootstrap", minimum=10)
        rng = np.random.default_rng(seed)
        self.n_clusters = n_clusters
        self.n_resamples = n_resamples
        # Cluster-major: the weights of a slice's clusters are contiguous rows to gather. Two
        # weights a byte (even resample in the low half, odd in the high half): a weight is at
        # most 8 (the table's largest quantile), and the matrix was 100 MB at 100,000 questions.
        self._packed = np.zeros((n_clusters, (n_resamples + 1) // 2), dtype=np.uint8)
        rows = max(1, _CHUNK_CELLS // n_resamples)
        for start in range(0, n_clusters, rows):
            stop = min(n_clusters, start + rows)
            draws = rng.integers(0, _LEVELS, size=(stop - start, n_resamples), dtype=np.uint16)
            weights = _TABLE[draws]
            self._packed[start:stop] = weights[:, 0::2]
            self._packed[start:stop, : n_resamples // 2] |= weights[:, 1::2] << 4

    def weights(
        self, clusters: NDArray[np.integer], out: NDArray[np.float32] | None = None
    ) -> NDArray[np.float32]:
        """The weights of the given clusters, one row each, one column per resample (into
        ``out`` when given, of shape ``(len(clusters), n_resamples)``).

        Example:
            >>> boot = ClusterBootstrap(3, n_resamples=11, seed=0)
            >>> w = boot.weights(np.arange(3))
            >>> w.shape, bool(((w >= 0) & (w <= 8)).all())
            ((3, 11), True)
        """
        packed = self._packed[clusters]
        if out is None:
            out = np.empty((len(packed), self.n_resamples), dtype=np.float32)
        out[:, 0::2] = packed & 0x0F
        out[:, 1::2] = packed[:, : self.n_resamples // 2] >> 4
        return out

    @classmethod
    def for_results(
        cls, measured: pd.DataFrame, *, n_resamples: int, seed: int = 0
    ) -> ClusterBootstrap:
        """Weights for every cluster of a :func:`~assay.analyze.weakness.measured` table (of
        the whole run, when its ``attrs`` count them)."""
        count = measured.attrs.get(N_CLUSTERS)
        if count is None:
            codes = measured[CLUSTER].to_numpy()
            count = int(codes.max()) + 1 if codes.size else 0
        return cls(int(count), n_resamples=n_resamples, seed=seed)

    def means(
        self,
        clusters: NDArray[np.integer],
        values: NDArray[np.float64],
        columns: NDArray[np.integer] | None = None,
        n_columns: int = 1,
        rows: NDArray[np.intp] | None = None,
    ) -> NDArray[np.float64]:
        """Resampled means of ``values``, one column per group of ``columns``.

        Args:
            clusters: the cluster code of each value.
            values: the values (one per case).
            columns: the column (e.g. metric) of each value; all in column 0 when omitted.
            n_columns: number of columns.
            rows: positions of the values to use (default: all). ``clusters``, ``values`` and
                ``columns`` are read at these positions a block at a time: a slice of a large
                table is not copied.

        Returns:
            An ``(n_resamples, n_columns)`` array; NaN where a resample gives a column's
            clusters zero total weight (or the column has no value).
        """
        local, position = self._local(clusters, rows)
        size = local.size * n_columns
        # Per (cluster, column): the sum of the values and their number. Accumulated a block of
        # rows at a time, in row order: the float64 sums are those of one ``np.bincount`` over
        # all rows, bit for bit, and the transient is a block's, not a copy of every row's
        # cluster, key and value (~110 MB for one model's 1.8 M rows at 100,000 cases).
        sums = np.zeros(size)
        counts = np.zeros(size, dtype=np.int32)
        ones = np.ones(_ROW_BLOCK, dtype=np.int32)
        for part in _row_blocks(len(values), rows):
            key = position[clusters[part]]
            if columns is not None:
                key *= n_columns
                key += columns[part]
            np.add.at(sums, key, values[part])
            np.add.at(counts, key, ones[: key.size])
        sum_table = sums.reshape(local.size, n_columns)
        count_table = counts.reshape(local.size, n_columns)
        # Numerators and denominators of every column in one product per block of clusters.
        # float32 halves the memory traffic (the product is memory-bound); its 1e-7 relative
        # error is far below the Monte-Carlo error of the resampled means. One block of
        # weights at a time, unpacked into the same buffer.
        totals = np.zeros((2 * n_columns, self.n_resamples), dtype=np.float64)
        step = max(1, _CHUNK_CELLS // self.n_resamples)
        buffer = np.empty((min(step, local.size), self.n_resamples), dtype=np.float32)
        stacked = np.empty((2 * n_columns, buffer.shape[0]), dtype=np.float32)
        with _blas().limit(limits=1, user_api="blas"):
            # One thread: multi-threaded BLAS on small products only contends on shared cores.
            for start in range(0, local.size, step):
                stop = min(local.size, start + step)
                width = stop - start
                stacked[:n_columns, :width] = sum_table[start:stop].T
                stacked[n_columns:, :width] = count_table[start:stop].T
                block = self.weights(local[start:stop], out=buffer[:width])
                totals += stacked[:, :width] @ block
        with np.errstate(invalid="ignore", divide="ignore"):
            return (totals[:n_columns] / totals[n_columns:]).T

    def interval(
        self,
        clusters: NDArray[np.integer],
        values: NDArray[np.float64],
        confidence: float,
        columns: NDArray[np.integer] | None = None,
        n_columns: int = 1,
        rows: NDArray[np.intp] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Percentile interval of each column's mean (arguments as :meth:`means`). A column
        whose values are all equal has no spread: its interval is that value itself (exactly,
        not up to the rounding of a weighted mean).

        Example:
            >>> boot = ClusterBootstrap(4, n_resamples=200, seed=0)
            >>> low, high = boot.interval(np.arange(4), np.array([0.5, 0.5, 1.0, 1.0]), 0.95,
            ...                           columns=np.array([0, 0, 1, 1]), n_columns=2)
            >>> low.tolist(), high.tolist()
            ([0.5, 1.0], [0.5, 1.0])
        """
        low, high = percentile_interval(
            self.means(clusters, values, columns, n_columns, rows), confidence
        )
        lowest = np.full(n_columns, np.inf)
        highest = np.full(n_columns, -np.inf)
        for part in _row_blocks(len(values), rows):
            chosen = values[part]
            where = np.zeros(chosen.size, dtype=np.intp) if columns is None else columns[part]
            np.minimum.at(lowest, where, chosen)
            np.maximum.at(highest, where, chosen)
        constant = lowest == highest
        low[constant] = high[constant] = lowest[constant]
        return low, high

    def _local(
        self, clusters: NDArray[np.integer], rows: NDArray[np.intp] | None
    ) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """The clusters present at ``rows`` in ascending order (``np.unique``) and the position
        of each cluster among them, by marking the codes present among all clusters: linear, and
        no sorted copies of a 1.8 M-row column (issue 23)."""
        present = np.zeros(self.n_clusters, dtype=bool)
        for part in _row_blocks(len(clusters), rows):
            present[clusters[part]] = True
        return np.flatnonzero(present), np.cumsum(present, dtype=np.intp) - 1

    def difference_test(
        self, clusters: NDArray[np.intp], diffs: NDArray[np.float64], confidence: float
    ) -> tuple[float, float, float]:
        """Percentile interval and two-sided p-value of the mean of paired differences
        ``diffs`` (one per case, in ``clusters``), from the resampled means. Differences that are
        all equal need no resampling: the interval is that value, p is 1 for 0 and 0 otherwise.

        Example:
            >>> boot = ClusterBootstrap(4, n_resamples=200, seed=0)
            >>> low, high, p = boot.difference_test(np.arange(4), np.array([0.1, 0.2, 0.3, 0.2]),
            ...                                     0.95)
            >>> 0.0 < low < high, p < 0.05
            (True, True)
        """
        if np.all(diffs == diffs[0]):
            return float(diffs[0]), float(diffs[0]), 1.0 if diffs[0] == 0 else 0.0
        means = self.means(clusters, diffs)
        low, high = percentile_interval(means, confidence)
        return float(low[0]), float(high[0]), bootstrap_p_value(means)


def percentile_interval(
    means: NDArray[np.float64], confidence: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile interval per column of resampled ``means``, ignoring NaN resamples.

    A column with no finite resample gets NaN bounds.

    Example:
        >>> low, high = percentile_interval(np.array([[0.0], [1.0], [np.nan]]), 0.5)
        >>> float(low[0]), float(high[0])
        (0.25, 0.75)
    """
    alpha = (1.0 - confidence) / 2.0
    finite = np.isfinite(means).any(axis=0)
    low = np.full(means.shape[1], np.nan)
    high = np.full(means.shape[1], np.nan)
    if finite.any():
        bounds = np.nanquantile(means[:, finite], [alpha, 1.0 - alpha], axis=0)
        low[finite], high[finite] = bounds[0], bounds[1]
    return low, high


def _row_blocks(n: int, rows: NDArray[np.intp] | None) -> Iterator[slice | NDArray[np.intp]]:
    """Blocks of at most ``_ROW_BLOCK`` of the positions ``rows`` (default ``0 .. n - 1``), in
    order: slices of ``rows`` or of the whole range (views, not copies)."""
    total = n if rows is None else len(rows)
    for start in range(0, total, _ROW_BLOCK):
        stop = min(total, start + _ROW_BLOCK)
        yield slice(start, stop) if rows is None else rows[start:stop]
