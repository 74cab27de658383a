"""Pass / fail verdicts of the analysis table as one byte a row.

A result row's ``passed`` is True, False or missing (no threshold). Read into pandas it is an
``object`` column, 8 bytes a row (220 MB for the 27.5 M measured rows of a 1,000,000-case run,
issue 48); the analysis keeps it as an ``int8`` code instead: :data:`PASS`, :data:`FAIL` or
:data:`NO_VERDICT`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from numpy.typing import NDArray

PASS, FAIL, NO_VERDICT = 1, 0, -1


def verdict_codes(passed: pd.Series | pa.Array | pa.ChunkedArray) -> NDArray[np.int8]:
    """``passed`` as ``int8`` codes (a column of codes already is returned as it is).

    Example:
        >>> verdict_codes(pd.Series([True, None, False])).tolist()
        [1, -1, 0]
        >>> verdict_codes(pa.array([None, True])).tolist()
        [-1, 1]
    """
    if isinstance(passed, pa.Array | pa.ChunkedArray):
        flags = passed.cast(pa.int8()).fill_null(NO_VERDICT)
        return np.asarray(flags.to_numpy(), dtype=np.int8)
    if passed.dtype == np.int8:
        return passed.to_numpy()
    judged = passed.notna().to_numpy()
    out = np.full(len(passed), NO_VERDICT, dtype=np.int8)
    out[judged] = passed.to_numpy()[judged].astype(bool)
    return out


def verdict_floats(codes: NDArray[np.int8]) -> NDArray[np.float64]:
    """Codes as floats: 1 pass, 0 fail, NaN no verdict.

    Example:
        >>> verdict_floats(np.array([1, -1, 0], dtype=np.int8)).tolist()
        [1.0, nan, 0.0]
    """
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out
