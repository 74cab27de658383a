"""Run every benchmark (``benchmarks/bench_*.py``) in turn; each writes benchmarks/results/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    selected = sys.argv[1:]
    failures = 0
    for script in sorted(HERE.glob("bench_*.py")):
        if selected and not any(s in script.name for s in selected):
            continue
        print(f"== {script.name}", flush=True)
        failures += subprocess.run([sys.executable, str(script)], check=False).returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
