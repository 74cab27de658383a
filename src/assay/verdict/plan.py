"""The validation plan: one TOML file that states a whole validation and its risk appetite.

A plan names the suite, the evaluators and their parameters, where the human labels come from, how
scores are calibrated, and per check of each validation dimension the limit on a rate with the
confidence at which it must be shown. See ``docs/verdict.md`` for the format and
:func:`starter_plan` for a commented example.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from assay.errors import InvalidInputError

#: The six validation dimensions (validation framework) plus the robustness check, in report order.
DIMENSIONS: dict[str, str] = {
    "retrieval": "Retrieval",
    "qa": "Q&A",
    "tone": "Tone",
    "risk": "Risk & guardrails",
    "hallucination": "Hallucination",
    "bad_actor": "Bad actor",
    "robustness": "Robustness",
}
#: Which cases a check is about.
SCOPES = ("all", "original", "perturbed", "attacks", "abstain")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunSection(_Strict):
    """What to evaluate: the suite, the evaluators and their parameters."""

    suite: Path
    evaluators: list[str] = Field(min_length=1)
    params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    thresholds: dict[str, float] = Field(default_factory=dict)
    seed: int = 0


class LabelsSection(_Strict):
    """Where human labels come from and how they are split.

    ``source`` is one source or a list, later ones overriding earlier ones for the same case:
    ``"suite"`` (the ``labels`` field of each case), ``"store"`` (the labeling app's store of the
    assessment's run, majority per criterion), or a CSV / JSONL file with ``id``, ``model`` and one
    column per criterion (1 / true = PASS). ``"none"`` means the verdict is uncalibrated.
    """

    source: str | list[str] = "suite"
    #: how the labels of an outside source (``"suite"`` or a file) were chosen: ``"random"`` (a
    #: uniform random sample of the suite) or ``"unknown"`` (anything else: they settle their own
    #: cases but no bound treats them as a sample); one design for every source, or a table of
    #: source → design. The store's labels carry the design of the round that drew them.
    design: Literal["random", "unknown"] | dict[str, Literal["random", "unknown"]] = "unknown"

    @property
    def sources(self) -> list[str]:
        """The sources in order (``"none"`` gives an empty list)."""
        items = [self.source] if isinstance(self.source, str) else list(self.source)
        return [s for s in items if s != "none"]

    def design_of(self, source: str) -> str:
        """The declared design of an outside source (``"unknown"`` when not declared)."""
        if isinstance(self.design, str):
            return self.design
        return self.design.get(source, "unknown")

    @model_validator(mode="after")
    def _designs_name_sources(self) -> LabelsSection:
        if isinstance(self.design, dict):
            unknown = sorted(set(self.design) - set(self.sources))
            if unknown:
                raise ValueError(f"'design' names sources the plan does not read: {unknown}")
        return self

    calibration_fraction: float = Field(default=0.5, gt=0.0, lt=1.0)


class CalibrationSection(_Strict):
    """How deciding metrics are mapped to P(human PASS) and wrapped in conformal sets."""

    method: Literal["isotonic", "logistic"] = "isotonic"
    confidence: float = Field(default=0.9, gt=0.5, lt=1.0)
    #: how REVIEW cases enter the rate bounds: ``conservative`` counts them as FAIL for the lower
    #: bound and as PASS for the upper; ``calibrated`` uses their P(PASS) like every other case
    #: (valid too: the labelled cases rectify any prediction; tighter)
    review_in_rates: Literal["conservative", "calibrated"] = "conservative"
    n_boot: int = Field(default=1000, ge=100)


class Check(_Strict):
    """One check of a dimension: a rate over the cases in ``scope`` and its limit.

    A case PASSes a check when its human label (``label``) says so; unlabelled cases are decided
    by the calibrated ``metrics``. Without ``label``, a case PASSes when every metric in
    ``metrics`` passes its threshold (rule-based checks: leaks, toxicity, attack success).
    Exactly one of ``min_pass_rate`` and ``max_fail_rate`` states the risk appetite; ``0`` as
    ``max_fail_rate`` is zero tolerance.
    """

    dimension: str
    name: str
    metrics: list[str] = Field(min_length=1)
    label: str | None = None
    scope: Literal["all", "original", "perturbed", "attacks", "abstain"] = "all"
    min_pass_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    max_fail_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence: float = Field(default=0.95, gt=0.5, lt=1.0)
    max_unmeasured: float = Field(default=0.05, ge=0.0, le=1.0)
    threshold: float | None = None

    @model_validator(mode="after")
    def _one_limit(self) -> Check:
        if (self.min_pass_rate is None) == (self.max_fail_rate is None):
            raise ValueError("give exactly one of 'min_pass_rate' and 'max_fail_rate'")
        if self.dimension not in DIMENSIONS:
            raise ValueError(f"'dimension' must be one of {', '.join(DIMENSIONS)}")
        return self

    @property
    def target(self) -> float:
        """The least acceptable pass rate."""
        return self.min_pass_rate if self.min_pass_rate is not None else 1.0 - self.max_fail_rate  # type: ignore[operator]

    @property
    def zero_tolerance(self) -> bool:
        """Whether a single failing case fails the check."""
        return self.max_fail_rate == 0.0

    def appetite(self) -> str:
        """The limit in words, e.g. ``fail rate ≤ 2% at 95%``."""
        level = f"{self.confidence:.0%}"
        if self.zero_tolerance:
            return "zero tolerance"
        if self.max_fail_rate is not None:
            return f"fail rate ≤ {self.max_fail_rate:.1%} at {level}"
        return f"pass rate ≥ {self.min_pass_rate:.1%} at {level}"


class ValidationPlan(_Strict):
    """A whole validation: run, labels, calibration and checks."""

    title: str = "Validation"
    run: RunSection
    labels: LabelsSection = Field(default_factory=LabelsSection)
    calibration: CalibrationSection = Field(default_factory=CalibrationSection)
    check: list[Check] = Field(min_length=1)
    #: folder of the plan file; relative paths in the plan are resolved against it
    base_dir: Path = Path(".")

    def resolve(self, path: Path | str) -> Path:
        """A path of the plan, relative to the plan file's folder."""
        p = Path(path)
        return p if p.is_absolute() else self.base_dir / p

    @property
    def suite_path(self) -> Path:
        """The suite file."""
        return self.resolve(self.run.suite)


def _key_line(text: str, loc: tuple[Any, ...]) -> int | None:
    """Line (1-based) of the key named by a validation error location, found in the TOML text."""
    lines = text.splitlines()
    start = 0
    keys = [str(k) for k in loc if not isinstance(k, int)]
    if loc and loc[0] == "check" and len(loc) > 1 and isinstance(loc[1], int):
        headers = [i for i, line in enumerate(lines) if re.match(r"\s*\[\[\s*check\s*\]\]", line)]
        if loc[1] < len(headers):
            start = headers[loc[1]]
            keys = [str(k) for k in loc[2:]]
    for key in reversed(keys):
        pattern = re.compile(rf"^\s*(\[+\s*)?[\w.\"-]*\b{re.escape(key)}\b")
        for i in range(start, len(lines)):
            if pattern.match(lines[i]):
                return i + 1
    return start + 1 if start else None


def parse_plan(text: str, source: str = "<plan>", base_dir: Path | None = None) -> ValidationPlan:
    """Validate a plan's TOML text; errors name the key and its line.

    Example:
        >>> plan = parse_plan('''
        ... [run]
        ... suite = "suite.jsonl"
        ... evaluators = ["token_f1"]
        ... [[check]]
        ... dimension = "qa"
        ... name = "correct answers"
        ... metrics = ["token_f1"]
        ... label = "correct"
        ... min_pass_rate = 0.9
        ... ''')
        >>> plan.check[0].appetite()
        'pass rate ≥ 90.0% at 95%'
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{source}: not valid TOML: {exc}") from exc
    data["base_dir"] = base_dir or Path(".")
    try:
        return ValidationPlan.model_validate(data)
    except ValidationError as exc:
        messages = []
        for error in exc.errors():
            loc = tuple(error["loc"])
            key = ".".join(str(part) for part in loc) or "(plan)"
            line = _key_line(text, loc)
            where = f"{source}:{line}" if line else source
            messages.append(f"{where}: {key}: {error['msg']}")
        raise InvalidInputError("invalid validation plan\n  " + "\n  ".join(messages)) from exc


def load_plan(path: str | Path) -> ValidationPlan:
    """Read and validate a plan file (relative paths resolve against its folder)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{p}: cannot read the validation plan: {exc}") from exc
    return parse_plan(text, str(p), p.parent)


def plan_record(plan: ValidationPlan) -> str:
    """The plan as JSON with its folder made absolute (the copy an assessment keeps). Evaluator
    parameters are left out: they may hold endpoints or credentials, and readers of the copy need
    only the checks, the label sources and the suite.

    Example:
        >>> plan = parse_plan('''
        ... [run]
        ... suite = "s.jsonl"
        ... evaluators = ["token_f1"]
        ... [[check]]
        ... dimension = "qa"
        ... name = "correct"
        ... metrics = ["token_f1"]
        ... label = "correct"
        ... min_pass_rate = 0.9
        ... ''')
        >>> back = read_plan_record_text(plan_record(plan))
        >>> back.check == plan.check and back.suite_path == plan.suite_path.resolve()
        True
    """
    data = plan.model_dump(mode="json")
    data["base_dir"] = str(plan.base_dir.resolve())
    data["run"]["params"] = {}
    return json.dumps(data, indent=2) + "\n"


def read_plan_record_text(text: str, source: str = "<plan record>") -> ValidationPlan:
    """A plan from :func:`plan_record`'s JSON."""
    try:
        return ValidationPlan.model_validate(json.loads(text))
    except (ValueError, ValidationError) as exc:
        raise InvalidInputError(f"{source}: not a validation plan record: {exc}") from exc


def read_plan_record(path: str | Path) -> ValidationPlan:
    """The plan an assessment keeps (``ASSESSMENT/plan.json``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{p}: cannot read the plan record: {exc}") from exc
    return read_plan_record_text(text, str(p))
