"""Typed records of a run directory: result rows, leaderboard rows, findings and the manifest.

They are :class:`typing.TypedDict` s, not classes with behaviour: on disk and in memory a record
is the plain JSON object it always was (``run.leaderboard[0]["value"]`` keeps working, files are
byte-for-byte unchanged), while mypy checks every reader's keys and value types. Design note 0021
explains the choice over pydantic models (no copy, no validation cost on 10^6 result rows).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

#: Outcome status of a result row (see :class:`assay.evaluators.base.Status`).
RowStatus = Literal["ok", "skipped", "error"]


class ResultRow(TypedDict):
    """One case × metric of the results table (:data:`~assay.rundir.results.RESULT_SCHEMA`)."""

    case_id: str
    model: str
    evaluator: str
    metric: str
    primary: bool
    status: str
    value: float | None
    passed: bool | None
    threshold: float | None
    reason: str | None
    explanation: str | None
    details: str | None
    topic: str | None
    query_type: str | None
    perturbation: str | None
    parent_id: str | None
    sample_of: str | None
    sample: int | None


class LeaderboardRow(TypedDict):
    """One (model, metric) aggregate of ``leaderboard.json``."""

    model: str
    evaluator: str
    metric: str
    primary: bool
    aggregation: str
    higher_is_better: bool
    threshold: float | None
    value: float | None
    std: float | None
    n_ok: int
    n_skipped: int
    n_error: int
    n_pass: int
    n_fail: int
    pass_rate: float | None
    passed: bool | None


class LeaderboardRowCI(LeaderboardRow):
    """A leaderboard row with bootstrap intervals of its value and pass rate (``analysis.json``)."""

    ci_low: float | None
    ci_high: float | None
    pass_ci_low: float | None
    pass_ci_high: float | None


class Finding(TypedDict):
    """A problem (``problems.json``) or an insight (``insights.json``)."""

    kind: str
    message: str
    evidence: dict[str, Any]
    severity: NotRequired[str]
    model: NotRequired[str]
    evaluator: NotRequired[str]
    metric: NotRequired[str]
    case_id: NotRequired[str]
    parent_id: NotRequired[str]
    perturbation: NotRequired[str | None]


class SuiteInfo(TypedDict):
    """The manifest's ``input``: the evaluated suite."""

    path: str | None
    sha256: str
    n_cases: int
    models: list[str]


class Manifest(TypedDict):
    """``manifest.json``: everything needed to reproduce, re-score or compare a run (DESIGN §9).

    ``status`` is ``"partial"`` while the run is written and ``"complete"`` once sealed;
    ``files`` maps every file of the run to its sha256.
    """

    schema_version: int
    assay_version: str
    status: Literal["partial", "complete"]
    started_at: str
    finished_at: str | None
    python: str
    platform: str
    packages: dict[str, str | None]
    seed: int
    input: dict[str, Any]
    evaluators: list[dict[str, Any]]
    thresholds: dict[str, float]
    timings_s: dict[str, float]
    files: dict[str, str]
    executor: NotRequired[dict[str, Any]]
    calibrators: NotRequired[list[dict[str, Any]]]
    #: Seconds per stage of ``assay evaluate``: ``staging`` (validate and copy the suite),
    #: ``scoring``, ``analysis`` (leaderboard and findings) and ``reports``.
    stages_s: NotRequired[dict[str, float]]
    reports_rebuilt_at: NotRequired[str]
