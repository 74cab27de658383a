"""The command line's allocator choice (issue 23): ``assay evaluate`` lets Arrow allocate from
the C heap that :func:`assay.memory.release_memory` trims; the library leaves the caller's
process alone."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


def _suite(path: Path) -> Path:
    rows = [{"id": f"q{i}", "actual_answer": f"answer {i}", "expected_answer": f"answer {i % 2}"}
            for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _pool_after(code: str) -> str:
    """Arrow's memory pool after ``code`` ran in a fresh interpreter."""
    probe = code + "\nimport pyarrow as pa\nprint('POOL', pa.default_memory_pool().backend_name)\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split("POOL ")[-1].strip()


def test_assay_evaluate_allocates_arrow_from_the_c_heap(tmp_path: Path) -> None:
    suite, out = _suite(tmp_path / "suite.jsonl"), tmp_path / "run"
    code = textwrap.dedent(f"""
        import sys
        from assay.cli.main import main
        sys.argv = ["assay", "evaluate", {str(suite)!r}, "-e", "exact_match", "--out", {str(out)!r}]
        try:
            main()
        except SystemExit as stop:
            assert not stop.code, stop.code
    """)
    assert _pool_after(code) == "system"
    assert (out / "manifest.json").is_file()  # the run completed


def test_the_library_leaves_the_callers_allocator_alone(tmp_path: Path) -> None:
    suite, out = _suite(tmp_path / "suite.jsonl"), tmp_path / "run"
    default = _pool_after("")
    code = f"import assay\nassay.evaluate({str(suite)!r}, ['exact_match'], out={str(out)!r})"
    assert _pool_after(code) == default
    assert (out / "manifest.json").is_file()
