"""README.md starts with the two contract commands and its generated blocks are current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_starts_with_the_two_commands() -> None:
    head = (ROOT / "README.md").read_text(encoding="utf-8")[:1500]
    assert "make demo" in head and "make test" in head


def test_generated_blocks_are_current() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "update_readme.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def _readme_commands() -> list[list[str]]:
    """Every ``assay ...`` command of the README's bash blocks, comments dropped."""
    import re
    import shlex

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL):
        for line in block.splitlines():
            for part in re.split(r"\s+&&\s+", re.split(r"\s{2,}#", line)[0]):
                if part.strip().startswith("assay "):
                    out.append(shlex.split(part)[1:])
    return out


def test_every_readme_command_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each README command names a real subcommand with real options and arguments; the files
    and folders it names exist (empty) so only the command line itself is checked."""
    import click

    from assay.cli.main import cli

    monkeypatch.chdir(tmp_path)
    commands = _readme_commands()
    assert len(commands) >= 20
    for args in commands:
        for token in args:
            if token.startswith("-") or ("/" not in token and "." not in token):
                continue
            path = Path(token)
            if path.suffix in (".jsonl", ".csv", ".json", ".yaml", ".toml", ".parquet"):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
            elif not path.suffix:
                path.mkdir(parents=True, exist_ok=True)
        group = cli.make_context("assay", list(args))
        name, sub, rest = cli.resolve_command(group, list(args))
        assert sub is not None, args
        try:
            sub.make_context(str(name), rest, parent=group)
        except click.UsageError as exc:
            raise AssertionError(f"README command 'assay {' '.join(args)}': {exc}") from None
