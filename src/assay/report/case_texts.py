"""The evaluated cases' texts for the report drill-down, read from a run directory: its suite
copy (Parquet; JSON Lines in runs written before issue 23) or, for older runs, the suite named
in the manifest when it is unchanged."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.data.suite_parquet import parquet_records
from assay.rundir.layout import LEGACY_SUITE_FILE, MANIFEST_FILE
from assay.rundir.suite_copy import suite_copy

logger = logging.getLogger(__name__)


def read_cases(
    directory: Path, keys: set[tuple[str, str]] | None = None
) -> dict[tuple[str, str], dict[str, Any]]:
    """Cases of the run keyed by ``(id, model)``, from its suite copy (empty when absent).

    The copy was written by :func:`assay.evaluate` from validated cases, so it is read as plain
    records (fast); ``keys`` limits the result to the cases the report shows (read from the
    compressed Parquet copy with a filter, so a large run's other cases are never decoded).

    Example:
        >>> import tempfile
        >>> read_cases(Path(tempfile.mkdtemp()))
        {}
    """
    path = suite_copy(directory)
    if path is None:
        return _original_suite(directory, keys)
    out = {}
    for record in _copy_records(path, keys):
        key = (str(record.get("id")), str(record.get("model") or ""))
        if keys is None or key in keys:
            out[key] = record
    return out


def _copy_records(path: Path, keys: set[tuple[str, str]] | None) -> Iterator[dict[str, Any]]:
    """Records of a suite copy: Parquet, or the JSON Lines of runs written before issue 23."""
    if path.name != LEGACY_SUITE_FILE:
        ids = None if keys is None else {case_id for case_id, _ in keys}
        yield from (record for _, record in parquet_records(path, ids=ids))
        return
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _original_suite(
    directory: Path, keys: set[tuple[str, str]] | None
) -> dict[tuple[str, str], dict[str, Any]]:
    """Runs made before ``suite.jsonl`` was copied: the suite named in the manifest, if it is
    still there and unchanged (same sha256)."""
    from assay.fileio import sha256_file

    try:
        manifest = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
        info = manifest.get("input") or {}
        source = Path(info["path"])
        if not source.is_file() or sha256_file(source) != info.get("sha256"):
            logger.warning("case texts unavailable: %s is missing or changed", source)
            return {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    from assay.data.suite import read_suite

    return {
        case.key: case.model_dump()
        for case in read_suite(source)
        if keys is None or case.key in keys
    }
