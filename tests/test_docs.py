"""The documentation site builds strict (a broken link or a missing reference fails), its
generated reference covers every command and evaluator, and no user-documentation heading names
a tracker issue or a design note."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRACKER = re.compile(r"^#+ .*\b(?:issue|design note) \d+", re.I | re.M)


def test_no_tracker_numbers_in_user_documentation_headings() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = [f"{p.name}: {m[0]}" for p in pages for m in TRACKER.finditer(p.read_text())]
    assert found == []


def test_the_site_builds_strict_with_generated_references(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="install the docs extra: pip install -e '.[docs]'")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    cli_page = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    from assay.cli.main import cli

    for name in cli.commands:
        assert f"assay {name}</code>" in cli_page, name
    catalogue = (site / "reference" / "evaluators" / "index.html").read_text(encoding="utf-8")
    # the registry as the site's build sees it (other tests register evaluators in this process)
    names = subprocess.run(
        [sys.executable, "-c", "from assay.evaluators.registry import evaluator_names; "
         "print('\\n'.join(evaluator_names()))"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert len(names) > 50
    missing = [n for n in names if f">{n}<" not in catalogue and n not in catalogue]
    assert missing == []
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "assess" in api and "Evaluate a suite with the given evaluators" in api
