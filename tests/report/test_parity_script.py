"""scripts/report_parity.py: a run's reports written again equal the originals byte for byte
(the HTML but the minute it was generated), and a changed report is named."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path
from types import ModuleType

from assay.rundir.run import EvaluationRun

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "report_parity.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("report_parity", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copy(run: EvaluationRun, tmp_path: Path) -> Path:
    assert run.path is not None
    return Path(shutil.copytree(run.path, tmp_path / "run"))


def test_reports_written_again_are_identical(report_run: EvaluationRun, tmp_path: Path) -> None:
    run_dir = _copy(report_run, tmp_path)
    html = run_dir / "report.html"  # written at another minute: only that line may differ
    html.write_bytes(re.sub(rb"report generated [^<\n]*UTC", b"report generated 1999-01-01 00:00 UTC",
                            html.read_bytes()))
    (tmp_path / "scratch").mkdir()
    assert _script().differing(run_dir, tmp_path / "scratch") == []


def test_a_changed_report_is_named(report_run: EvaluationRun, tmp_path: Path) -> None:
    run_dir = _copy(report_run, tmp_path)
    report = run_dir / "report.html"
    report.write_bytes(report.read_bytes().replace(b"</body>", b"<p>x</p></body>"))
    (tmp_path / "scratch").mkdir()
    assert _script().differing(run_dir, tmp_path / "scratch") == ["report.html"]


def test_the_cases_json_is_compared_by_value(report_run: EvaluationRun, tmp_path: Path) -> None:
    """Another encoding of the same drill-down data (spacing, escapes) is no difference; another
    value is."""
    run_dir = _copy(report_run, tmp_path)
    report = run_dir / "report.html"
    pattern = re.compile(rb'(<script id="assay-cases" type="application/json">)(.*?)(</script>)',
                         re.S)
    data = json.loads(pattern.search(report.read_bytes())[2])  # type: ignore[index]
    spaced = json.dumps(data, indent=1).replace("<", "\\u003c").encode()  # (as in a page)
    report.write_bytes(pattern.sub(lambda m: m[1] + spaced + m[3], report.read_bytes()))
    script = _script()
    assert script._content(report) == script._content(report_run.path / "report.html")  # type: ignore[operator]
    data["shown"] += 1
    changed = json.dumps(data).replace("<", "\\u003c").encode()
    report.write_bytes(pattern.sub(lambda m: m[1] + changed + m[3], report.read_bytes()))
    assert script._content(report) != script._content(report_run.path / "report.html")  # type: ignore[operator]
