"""A truncated answer is unmeasured in every check, never out of scope.

An answer the system cut at its token limit is recorded by the runner (``TestCase.truncated``)
and every evaluator of the answer skips it with the reason. A check would read such a skip as
"not applicable" and leave the case out of its scope, so a system truncating its worst answers
would be judged on the rest. Here the truncated cases a check left out come back into it as
UNMEASURED: they count against the check's tolerance like an evaluator error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import numpy as np
import pandas as pd

from assay.verdict.cases import CALIBRATED, RULE, STATE_UNMEASURED, UNMEASURED, CaseVerdicts
from assay.verdict.design import row_keys

#: Why a truncated case is unmeasured (the table's ``reason``).
TRUNCATED = "the answer was cut at the system's token limit (truncated): unmeasured"


def unmeasured_truncated(
    verdicts: CaseVerdicts, truncated: Iterable[tuple[str, str]]
) -> CaseVerdicts:
    """Move the truncated ``(case_id, model)`` keys the check excluded into its table as
    UNMEASURED.

    Example:
        >>> table = pd.DataFrame({"case_id": ["a"], "model": ["m"], "verdict": ["PASS"]})
        >>> out = pd.DataFrame({"case_id": ["t"], "model": ["m"], "state": ["out of scope"],
        ...                     "reason": ["not applicable: f1 skipped this case"]})
        >>> cv = unmeasured_truncated(CaseVerdicts(table, "f1", False, excluded=out), [("t", "m")])
        >>> cv.table["verdict"].tolist(), len(cv.excluded)
        (['PASS', 'UNMEASURED'], 0)
    """
    wanted = set(truncated)
    excluded = verdicts.excluded
    if not wanted or not len(excluded):
        return verdicts
    back = np.array([k in wanted for k in row_keys(excluded)], dtype=bool)
    if not back.any():
        return verdicts
    rows = excluded.loc[back, ["case_id", "model"]].copy()
    rows["verdict"] = UNMEASURED
    rows["predicted"] = UNMEASURED
    rows["source"] = CALIBRATED if verdicts.calibrated else RULE
    rows["state"] = STATE_UNMEASURED
    rows["reason"] = TRUNCATED
    table = pd.concat([verdicts.table, rows], ignore_index=True)
    return dataclasses.replace(
        verdicts, table=table, excluded=excluded.loc[~back].reset_index(drop=True)
    )
