"""pytest plugin: gate a build on assay runs (``pytest --assay-run RUN_DIR``).

Registered through the ``pytest11`` entry point, so installing assay makes the options available.
Without ``--assay-run`` it does nothing. With it, every gate check of every named run becomes a
test item (``model::dimension::check``, one per system × check of the run's verdict), so the
normal pytest report, exit status and ``--junitxml`` show which checks a run fails or leaves
undecided (an undecided check fails unless ``--assay-allow-inconclusive``).

The ``assay_gate`` fixture returns :func:`assay.gating.assert_run_passes` for use in tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``assay`` option group."""
    group = parser.getgroup("assay", "assay run gating")
    group.addoption(
        "--assay-run",
        action="append",
        default=[],
        metavar="RUN_DIR",
        help="Gate on this assay run directory (repeatable): one test per verdict check.",
    )
    group.addoption(
        "--assay-threshold",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="Override a metric's threshold for --assay-run gating (repeatable).",
    )
    group.addoption(
        "--assay-metric",
        action="append",
        default=[],
        metavar="METRIC",
        help="Gate on the checks of these metrics (default: every check of the verdict).",
    )
    group.addoption(
        "--assay-allow-inconclusive",
        action="store_true",
        default=False,
        help="Skip INCONCLUSIVE checks instead of failing them (FAIL still fails).",
    )


class AssayGateItem(pytest.Item):
    """One gate check of one run."""

    def __init__(
        self, *, check: dict[str, Any], run_dir: str, require_measured: bool = True,
        **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.run_dir = run_dir
        self.require_measured = require_measured

    def runtest(self) -> None:
        """Fail when the check failed or is undecided; skip undecided ones when allowed."""
        if self.check["status"] == "fail" or (self.check["status"] == "inconclusive"
                                              and self.require_measured):
            raise AssertionError(self.check["message"])
        if self.check["status"] == "inconclusive":
            pytest.skip(self.check["message"])

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """The check's message instead of a traceback."""
        if isinstance(excinfo.value, AssertionError):
            return f"{self.run_dir}: {self.check['name']}: {self.check['message']}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the check comes from (the run directory)."""
        return Path(self.run_dir), None, f"assay gate {self.check['name']}"


def _thresholds(values: list[str]) -> dict[str, float]:
    out = {}
    for value in values:
        metric, sep, raw = value.partition("=")
        try:
            out[metric.strip()] = float(raw)
        except ValueError:
            raise pytest.UsageError(
                f"--assay-threshold expects METRIC=VALUE; got {value!r}"
            ) from None
        if not sep:
            raise pytest.UsageError(f"--assay-threshold expects METRIC=VALUE; got {value!r}")
    return out


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Append one :class:`AssayGateItem` per gate check of each ``--assay-run``."""
    run_dirs = config.getoption("assay_run")
    if not run_dirs:
        return
    from assay.errors import AssayError
    from assay.gating.check import check_run

    thresholds = _thresholds(config.getoption("assay_threshold"))
    metrics = config.getoption("assay_metric") or None
    require_measured = not config.getoption("assay_allow_inconclusive")
    for run_dir in run_dirs:
        try:
            result = check_run(
                run_dir,
                metrics=metrics,
                thresholds=thresholds,
                require_measured=require_measured,
            )
        except AssayError as exc:
            raise pytest.UsageError(f"--assay-run {run_dir}: {exc}") from exc
        for check in result.checks:
            items.append(
                AssayGateItem.from_parent(
                    session,
                    name=f"assay[{Path(run_dir).name}]::{check['name']}",
                    check=check,
                    run_dir=str(run_dir),
                    require_measured=require_measured,
                )
            )


@pytest.fixture
def assay_gate() -> Callable[..., Any]:
    """:func:`assay.gating.assert_run_passes`, for gating runs inside a test."""
    from assay.gating.check import assert_run_passes

    return assert_run_passes
