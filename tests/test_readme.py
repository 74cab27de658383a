"""README.md starts with the two contract commands and its generated blocks are current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_starts_with_the_two_commands() -> None:
    head = (ROOT / "README.md").read_text(encoding="utf-8")[:1500]
    assert "make demo" in head and "make test" in head


def test_generated_blocks_are_current() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "update_readme.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
