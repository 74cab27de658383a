"""Do the current code's reports equal those an earlier revision wrote? Byte for byte.

Run: ``python scripts/report_parity.py RUN_DIR [RUN_DIR ...]`` with run directories written
before a change (``assay evaluate ... --out RUN_DIR``, or the ``run`` folder of ``assay demo``).
Each is copied to a temporary directory, its reports are written again with the current code
(:func:`assay.report.write_reports`, the defaults ``assay evaluate`` uses) and compared with the
originals: ``analysis.json`` (leaderboard with intervals, pairwise tests, dimensions, weaknesses,
verdict), ``leaderboard.md``, ``report.md`` and ``report.html`` (but the minute it states it was
generated; the drill-down's embedded JSON is compared by value, so a change of JSON encoder —
separators, escaping — is not a difference). Exits 1 when a file differs, naming it.

Used for issue 23 (design note 0037): the analysis' memory layout changed, its numbers must not;
the reports' drill-down and redaction were rebuilt, their output must not change either.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from assay.report import write_reports
from assay.rundir.run import load_run

COMPARED = ("analysis.json", "leaderboard.md", "report.md", "report.html")
#: The one line of a report that may differ: when it was written.
_GENERATED = re.compile(rb"report generated \d{4}-\d\d-\d\d \d\d:\d\d UTC")


def differing(run_dir: Path, scratch: Path) -> list[str]:
    """The reports of ``run_dir`` that the current code writes differently."""
    copy = scratch / run_dir.name
    shutil.copytree(run_dir, copy)
    write_reports(load_run(copy), copy)
    return [n for n in COMPARED if _content(run_dir / n) != _content(copy / n)]


#: The drill-down's data inside ``report.html``.
_CASES = re.compile(rb'(<script id="assay-cases" type="application/json">)(.*?)(</script>)', re.S)


def _content(path: Path) -> bytes:
    """A report's bytes, its generation time left out and its embedded JSON re-encoded one way."""
    data = _GENERATED.sub(b"report generated", path.read_bytes())
    return _CASES.sub(lambda m: m[1] + _canonical(m[2]) + m[3], data)


def _canonical(encoded: bytes) -> bytes:
    """JSON text in one encoding (sorted keys, standard separators, ASCII escapes)."""
    return json.dumps(json.loads(encoded), sort_keys=True).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories written before")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory(prefix="assay-report-parity-") as name:
        for i, run_dir in enumerate(args.runs):
            scratch = Path(name) / str(i)
            scratch.mkdir()
            changed = differing(run_dir, scratch)
            failed = failed or bool(changed)
            verdict = f"DIFFERENT: {', '.join(changed)}" if changed else "identical"
            print(f"{run_dir}: {', '.join(COMPARED)} {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
