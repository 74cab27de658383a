"""Import cost benchmark: CPU time of ``import assay``, ``assay --help`` and the pytest plugin,
each in a fresh interpreter, against a bare interpreter and against importing the libraries
``import assay`` used to load eagerly (numpy, pandas, pyarrow, pydantic).

Run: ``python benchmarks/bench_import.py``. Writes benchmarks/results/import.md. Times are the
child process's CPU seconds (user + system, best of 7) minus the bare interpreter's, so load from
other processes on a shared machine does not inflate them. Target: ``import assay`` ≤ 0.15 s.
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
REPEATS = 7
TARGET = 0.15
HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "sklearn", "torch", "pydantic")
CASES = {
    "bare interpreter": "pass",
    "import assay": "import assay",
    "assay --help": "import sys; sys.argv = ['assay', '--help']\n"
    "from assay.cli.main import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass",
    "import pytest": "import pytest",
    "pytest plugin (assay.gating.plugin)": "import pytest, assay.gating.plugin",
    "reference: numpy, pandas, pyarrow, pydantic": "import numpy, pandas, pyarrow, pydantic",
}


def _cpu(code: str) -> float:
    """CPU seconds of one fresh interpreter running ``code`` (best of REPEATS)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    best = float("inf")
    for _ in range(REPEATS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def _loaded(code: str) -> str:
    probe = (
        f"{code}\nimport sys\nprint('LOADED:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", probe], check=True, env=env, capture_output=True, text=True
    ).stdout.splitlines()
    return [line for line in out if line.startswith("LOADED:")][-1][7:] or "none"


def main() -> int:
    times = {name: _cpu(code) for name, code in CASES.items()}
    bare = times.pop("bare interpreter")
    pytest_cost = times.pop("import pytest") - bare
    reference = times["reference: numpy, pandas, pyarrow, pydantic"] - bare
    lines = [
        "# Import cost",
        "",
        f"CPU seconds above a bare interpreter ({bare:.3f} s), best of {REPEATS} fresh processes; "
        f"Python {platform.python_version()}, {platform.machine()}; the plugin's row is net of "
        f"importing pytest itself ({pytest_cost:.3f} s). "
        "Command: `python benchmarks/bench_import.py`.",
        "",
        "| what | CPU s | ratio to the eager-import reference | heavy modules loaded |",
        "|---|---:|---:|---|",
    ]
    for name, seconds in times.items():
        cost = seconds - bare - (pytest_cost if name.startswith("pytest plugin") else 0.0)
        lines.append(f"| {name} | {cost:.3f} | {cost / reference:.2f} | {_loaded(CASES[name])} |")
    cost = times["import assay"] - bare
    verdict = "met" if cost <= TARGET else "NOT met"
    lines += ["", f"Target `import assay` ≤ {TARGET} s CPU: {verdict} ({cost:.3f} s)."]
    from results_file import publish

    publish(HERE / "results" / "import.md", lines)
    return 0 if cost <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
