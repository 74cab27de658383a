"""Helpers of the adversarial tests: the CLI run as a user would, and every output's text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner, Result


def invoke(*args: str) -> Result:
    """``assay ARGS`` through the real command group, exceptions caught as a user sees them."""
    from assay.cli.main import cli

    return CliRunner().invoke(cli, list(args))


def every_text(folder: Path) -> str:
    """The text of every file under ``folder`` (binary files decoded leniently)."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace")
                     for p in sorted(folder.rglob("*")) if p.is_file())


def run_assay(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real ``assay`` entry point in a child process (as a user runs it: assay's errors
    become one line and exit status 2), with this checkout's sources first on the path."""
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=600, check=False)
