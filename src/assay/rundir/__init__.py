"""The run directory: its layout, typed records, readers, writers and atomic replacement.

Everything that reads or writes a run directory goes through this package (design note 0021):
file names live in :mod:`~assay.rundir.layout`, the results table's format in
:mod:`~assay.rundir.results`, the manifest and the completeness check in
:mod:`~assay.rundir.manifest`, the other files in :mod:`~assay.rundir.store`, and creating,
locking and committing a directory in :mod:`~assay.rundir.directory`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from assay.rundir.layout import (
    CALIBRATED_CSV,
    CALIBRATED_FILE,
    CORPUS_DETAILS_FILE,
    HTML_FILE,
    INSIGHTS_FILE,
    LEADERBOARD_FILE,
    MANIFEST_FILE,
    PROBLEMS_FILE,
    RESULTS_CSV,
    RESULTS_FILE,
    SUITE_FILE,
)

if TYPE_CHECKING:
    from assay.rundir.manifest import verify_run
    from assay.rundir.run import EvaluationRun, load_run

#: Lazily imported names (PEP 562): the layout alone costs nothing; reading pulls in pandas.
_LAZY = {
    "EvaluationRun": "assay.rundir.run",
    "load_run": "assay.rundir.run",
    "verify_run": "assay.rundir.manifest",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'assay.rundir' has no attribute {name!r}")


__all__ = [
    "CALIBRATED_CSV",
    "CALIBRATED_FILE",
    "CORPUS_DETAILS_FILE",
    "HTML_FILE",
    "INSIGHTS_FILE",
    "LEADERBOARD_FILE",
    "MANIFEST_FILE",
    "PROBLEMS_FILE",
    "RESULTS_CSV",
    "RESULTS_FILE",
    "SUITE_FILE",
    "EvaluationRun",
    "load_run",
    "verify_run",
]
