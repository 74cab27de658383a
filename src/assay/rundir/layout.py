"""Every file name of a run directory, in one place.

A run directory (``assay evaluate --out RUN``) holds the scored data, the reports rendered from
it, optional calibration outputs and, written last, the manifest that seals it. Nothing else in
assay spells these names: readers and writers import them from here (design note 0021).
"""

from __future__ import annotations

#: The long results table, one row per case × metric (primary format).
RESULTS_FILE = "results.parquet"
#: The same table as CSV, for spreadsheets.
RESULTS_CSV = "results.csv"
#: Schema version, inputs, evaluator specs, file hashes; written last, it marks the run complete.
MANIFEST_FILE = "manifest.json"
#: One row per (model, metric).
LEADERBOARD_FILE = "leaderboard.json"
#: Problems found by the analysis (failing slices, errors).
PROBLEMS_FILE = "problems.json"
#: Insights found by the analysis (cost, latency, trade-offs).
INSIGHTS_FILE = "insights.json"
#: Copy of the evaluated cases (the texts the reports and the labeling app show), as
#: zstd-compressed Parquet (:mod:`assay.rundir.suite_copy`).
SUITE_FILE = "suite.parquet"
#: The same copy as runs written before issue 23 hold it: raw JSON Lines (still read).
LEGACY_SUITE_FILE = "suite.jsonl"
#: Corpus-level details (e.g. confusion matrices): evaluator → model → details.
CORPUS_DETAILS_FILE = "corpus_details.json"

#: Reports rendered from the data (``assay report`` rebuilds them).
LEADERBOARD_MD = "leaderboard.md"
REPORT_MD = "report.md"
ANALYSIS_FILE = "analysis.json"
HTML_FILE = "report.html"

#: Calibrated probabilities and prediction sets (``assay evaluate --calibrator``).
CALIBRATED_FILE = "calibrated.parquet"
CALIBRATED_CSV = "calibrated.csv"

#: Outputs of ``assay calibrate`` (usually in ``RUN/calibration/``): role → file name.
CALIBRATION_FILES = {
    "report": "calibration.json",
    "markdown": "calibration.md",
    "plot": "calibration_plot.json",
    "calibrator": "calibrator.json",
}
#: Outputs of ``assay thresholds``: role → file name.
THRESHOLD_FILES = {
    "report": "thresholds.json",
    "markdown": "thresholds.md",
    "plot": "thresholds_plot.json",
}
#: Sub-directory where ``assay calibrate`` writes by default.
CALIBRATION_DIR = "calibration"
#: An assessment directory (``assay assess --out``): its run directory, then beside it the
#: verdict (JSON, Markdown, HTML), the per-case verdicts and the cases routed to REVIEW.
ASSESSMENT_RUN_DIR = "run"
VERDICT_FILE = "verdict.json"
VERDICT_MD = "verdict.md"
VERDICT_HTML = "verdict.html"
VERDICT_CASES_FILE = "verdict_cases.csv"
REVIEW_QUEUE_FILE = "review_queue.jsonl"
#: The plan an assessment was made from (JSON, paths absolute): the labeling queue and
#: ``assay labels sample`` read which checks use which label criterion, and their scopes.
PLAN_FILE = "plan.json"

#: Long text columns of the results table, left out when only values are needed.
TEXT_COLUMNS = ("reason", "explanation", "details")

#: Data files every complete run holds (the reports and optional files come on top).
DATA_FILES = (
    RESULTS_FILE,
    RESULTS_CSV,
    LEADERBOARD_FILE,
    PROBLEMS_FILE,
    INSIGHTS_FILE,
    SUITE_FILE,
)
#: Files a reader needs unchanged: their sha256 is checked against the manifest on load.
VERIFIED_FILES = (
    *DATA_FILES,
    LEGACY_SUITE_FILE,
    CORPUS_DETAILS_FILE,
    CALIBRATED_FILE,
    CALIBRATED_CSV,
)
