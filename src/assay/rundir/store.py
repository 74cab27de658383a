"""Writing the files of a run directory: analysis tables and the seal (the suite copy:
:mod:`assay.rundir.suite_copy`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.fileio import write_json
from assay.rundir.layout import (
    CORPUS_DETAILS_FILE,
    INSIGHTS_FILE,
    LEADERBOARD_FILE,
    MANIFEST_FILE,
    PROBLEMS_FILE,
)
from assay.rundir.manifest import finish_manifest, record_files
from assay.rundir.records import Finding, LeaderboardRow, Manifest


def write_tables(
    directory: Path,
    leaderboard: Sequence[LeaderboardRow],
    problems: Sequence[Finding],
    insights: Sequence[Finding],
    corpus_details: dict[str, dict[str, Any]],
) -> list[Path]:
    """Write the leaderboard, problems, insights and (when any) corpus details; return the files."""
    files = [
        write_json(directory / LEADERBOARD_FILE, leaderboard),
        write_json(directory / PROBLEMS_FILE, problems),
        write_json(directory / INSIGHTS_FILE, insights),
    ]
    if corpus_details:
        files.append(write_json(directory / CORPUS_DETAILS_FILE, corpus_details))
    return files


def seal(directory: Path, manifest: Manifest, files: list[Path]) -> None:
    """Record ``files`` and mark ``manifest`` complete, then write it, last, into ``directory``."""
    finish_manifest(manifest, files)
    write_json(directory / MANIFEST_FILE, manifest)


def update_manifest(directory: Path, manifest: Manifest, files: list[Path]) -> None:
    """Refresh the hashes of rewritten ``files`` (e.g. rebuilt reports) in a sealed run."""
    record_files(manifest, files)
    write_json(directory / MANIFEST_FILE, manifest)
