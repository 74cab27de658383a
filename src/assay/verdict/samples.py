"""Repeated samples in the verdict: k answers to one case decide as one case, never as k.

A system asked the same case k times (``assay run --repeats k``) gets one verdict per sampled
case, decided by its worst sample — FAIL before UNMEASURED before REVIEW before PASS: a case
passes only when every sample passes, the reliability a validator of a non-deterministic system
needs to state (pass^k). The rate bounds then count each sampled case once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from assay.verdict.cases import FAIL, PASS, REVIEW, UNMEASURED, CaseVerdicts

#: Order in which a sample's verdict decides its case (lowest first).
_WORST_FIRST = {FAIL: 0, UNMEASURED: 1, REVIEW: 2, PASS: 3}


def collapse_samples(
    verdicts: CaseVerdicts, sampled: Mapping[tuple[str, str], str]
) -> CaseVerdicts:
    """One row per sampled case: the row of its worst sample, under the sampled case's id, with
    ``samples`` (in scope) and ``samples_passing``; unsampled cases are unchanged.

    Args:
        verdicts: per-case verdicts of one check.
        sampled: ``(case_id, model)`` of each sample → the id of the case it samples.

    Example:
        >>> import pandas as pd
        >>> table = pd.DataFrame({"case_id": ["q#sample1", "q#sample2", "r"], "model": "m",
        ...                       "verdict": ["PASS", "FAIL", "PASS"]})
        >>> links = {("q#sample1", "m"): "q", ("q#sample2", "m"): "q"}
        >>> out = collapse_samples(CaseVerdicts(table, "acc", False), links).table
        >>> out[["case_id", "verdict", "samples", "samples_passing"]].values.tolist()
        [['q', 'FAIL', 2, 1], ['r', 'PASS', 1, 1]]
    """
    table = verdicts.table
    if table.empty or not sampled:
        return verdicts
    of = [sampled.get((c, m), c) for c, m in zip(table["case_id"], table["model"], strict=True)]
    marked = table.assign(
        _of=of,
        _rank=table["verdict"].map(_WORST_FIRST).fillna(len(_WORST_FIRST)),
        _pass=(table["verdict"] == PASS).astype(int),
    )
    grouped = marked.groupby(["_of", "model"], sort=False)
    counts = grouped.agg(samples=("verdict", "size"), samples_passing=("_pass", "sum"))
    worst = marked.loc[grouped["_rank"].idxmin()]
    merged = worst.merge(counts, left_on=["_of", "model"], right_index=True)
    merged["case_id"] = merged["_of"]
    collapsed = merged.drop(columns=["_of", "_rank", "_pass"]).reset_index(drop=True)
    return dataclasses.replace(verdicts, table=collapsed)
