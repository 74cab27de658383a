"""Helpers of the adversarial tests: the CLI run as a user would, and every output's text."""

from __future__ import annotations

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
