"""Where an assessment's memory goes: the peak resident set of each stage of ``assess``.

Run: ``python scripts/profile_assess.py [--cases 250000] [--workdir DIR] [--deep]``. Writes the
demo plan over the demo suite replicated to ``--cases`` cases (as ``benchmarks/bench_scale.py``
does) into ``--workdir`` unless it is there already, then assesses it in a fresh process with each
stage wrapped (with ``--deep``, the evaluation's stages too; with ``--stage MODULE:FUNCTION``,
any other function looked up on its module when called) and prints, per stage in the order
run, the resident set before it, its peak and after it (MiB). A workdir whose run is complete is
reused (the run's fingerprint matches), so a second call profiles the decision alone.

Each stage's peak is the kernel's high-water mark (``VmHWM``), reset when the stage starts
(``/proc/self/clear_refs``); a stage run inside another (the evaluation's own verdict runs the
same stages) folds its peak into the outer one's. Linux only. Design note 0065 quotes its tables.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: The functions of ``assay.verdict.assess`` timed as stages.
STAGES = (
    "_evaluate",
    "_read_cases",
    "_verdict_results",
    "_check_verdicts",
    "left_out",
    "decide_check",
    "explain_decisions",
    "write_assessment",
)
#: With ``--deep``, the evaluation's stages too, as ``(module, function)``: each is looked up on
#: its module when called, so wrapping the module's attribute times every call.
DEEP_STAGES = (
    ("assay.pipeline", "stage_suite"),
    ("assay.pipeline", "score"),
    ("assay.pipeline", "find_problems"),
    ("assay.verdict.implicit", "assess_run"),
    ("assay.pipeline", "write_tables"),
    ("assay.report", "write_reports"),
    ("assay.pipeline", "seal"),
)


def _status(field: str) -> int:
    """A ``/proc/self/status`` figure in MiB (``VmRSS``, ``VmHWM``)."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    raise RuntimeError(f"no {field} in /proc/self/status (Linux only)")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
        handle.write("5")


@dataclass
class _Frame:
    name: str
    depth: int
    before: int
    peak: int = 0


class StageTimer:
    """Wraps functions so that each call prints its stage's figures as one JSON line."""

    def __init__(self) -> None:
        self.stack: list[_Frame] = []
        self.start = time.perf_counter()

    def _fold(self, peak: int) -> None:
        for frame in self.stack:
            frame.peak = max(frame.peak, peak)

    def wrap(self, function: Callable[..., Any], name: str) -> Callable[..., Any]:
        def staged(*args: Any, **kwargs: Any) -> Any:
            self._fold(_status("VmHWM"))
            _reset_peak()
            frame = _Frame(name, len(self.stack), _status("VmRSS"))
            self.stack.append(frame)
            try:
                return function(*args, **kwargs)
            finally:
                self.stack.pop()
                frame.peak = max(frame.peak, _status("VmHWM"))
                self._fold(frame.peak)
                row = {"stage": name, "depth": frame.depth, "before": frame.before,
                       "peak": frame.peak, "after": _status("VmRSS"),
                       "seconds": round(time.perf_counter() - self.start, 1)}  # fmt: skip
                print(json.dumps(row), flush=True)

        return staged


def _child(plan: Path, out: Path, deep: bool, extra: list[str]) -> None:
    """Assess ``plan`` into ``out`` as ``assay assess`` does, each stage wrapped (``extra``:
    more stages as ``module:function``)."""
    import importlib

    from assay.memory import use_system_allocator

    module = importlib.import_module("assay.verdict.assess")  # the package's name is a function
    timer = StageTimer()
    for name in STAGES:
        setattr(module, name, timer.wrap(getattr(module, name), name))
    more = [tuple(stage.split(":", 1)) for stage in extra]
    for module_name, name in [*(DEEP_STAGES if deep else ()), *more]:
        owner = importlib.import_module(module_name)
        setattr(owner, name, timer.wrap(getattr(owner, name), name))
    use_system_allocator()  # as the command line does
    module.assess(plan, out)


def _workdir(cases: int, directory: Path) -> Path:
    """The replicated demo plan in ``directory`` (written unless its plan is there)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_scale import write_plan, write_replicated

    suite = directory / "suite.jsonl"
    if not suite.with_suffix(".toml").is_file():
        directory.mkdir(parents=True, exist_ok=True)
        write_replicated(suite, cases)
        write_plan(suite, cases)
    return suite.with_suffix(".toml")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=250_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--deep", action="store_true", help="also wrap the evaluation's stages (DEEP_STAGES)"
    )
    parser.add_argument(
        "--stage",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="also wrap this function (e.g. assay.verdict.cases:score_matrix); repeatable",
    )
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child, deep=args.deep, extra=args.stage)
        return 0
    directory = args.workdir or Path(tempfile.mkdtemp(prefix="profile-assess-"))
    plan = _workdir(args.cases, directory)
    print(f"assessing {plan} ({args.cases:,} cases) into {directory / 'out'}", file=sys.stderr)
    child = [sys.executable, __file__, "--child", str(plan), str(directory / "out")]
    child += ["--deep"] if args.deep else []
    child += [f"--stage={stage}" for stage in args.stage]
    done = subprocess.run(child, stdout=subprocess.PIPE, text=True, check=True)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"stage"')]
    print("| stage (· ran inside the next unmarked one) | ended (s) | before | peak | after |")
    print("|---|---|---|---|---|")
    for row in rows:
        name = "· " * row["depth"] + row["stage"]
        print(f"| {name} | {row['seconds']} | {row['before']} | {row['peak']} | {row['after']} |")
    whole = max((row["peak"] for row in rows if row["depth"] == 0), default=0)
    print(f"\nResident set in MiB. Peak of the stages: {whole} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
