"""The run manifest: everything needed to reproduce, re-score or compare a run (DESIGN §9)."""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from assay._version import __version__
from assay.fileio import sha256_file

SCHEMA_VERSION = 1
_RECORDED_PACKAGES = ("numpy", "pandas", "pyarrow", "pydantic", "scikit-learn", "scipy", "nupunkt")


def package_versions(extra: tuple[str, ...] = ()) -> dict[str, str | None]:
    """Installed versions of the packages that can change results."""
    out: dict[str, str | None] = {}
    for name in (*_RECORDED_PACKAGES, *extra):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def build_manifest(
    *,
    suite_info: dict[str, Any],
    evaluators: list[dict[str, Any]],
    thresholds: dict[str, float],
    seed: int,
    timings: dict[str, float],
    started: datetime,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble the manifest of a run still being written (``status`` ``"partial"``).

    Reports written into the run read their run details from it; :func:`finish_manifest` then
    records the files and marks it complete, just before it is written (last) to the run.

    Example:
        >>> m = build_manifest(suite_info={"path": "s.jsonl"}, evaluators=[], thresholds={},
        ...                    seed=3, timings={}, started=datetime.now(UTC))
        >>> m["status"], m["seed"], m["files"], m["assay_version"] == __version__
        ('partial', 3, {}, True)
    """
    return {
        "schema_version": SCHEMA_VERSION,
        "assay_version": __version__,
        "status": "partial",
        "started_at": started.isoformat(),
        "finished_at": None,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "seed": seed,
        "input": suite_info,
        "evaluators": evaluators,
        "thresholds": thresholds,
        "timings_s": timings,
        "files": {},
        **(extra or {}),
    }


def record_files(manifest: dict[str, Any], files: list[Path]) -> dict[str, Any]:
    """Add (or refresh) the sha256 of ``files`` in ``manifest["files"]``, so later tampering is
    detectable; returns the manifest."""
    manifest.setdefault("files", {}).update({p.name: sha256_file(p) for p in files})
    return manifest


def finish_manifest(manifest: dict[str, Any], files: list[Path]) -> dict[str, Any]:
    """Record ``files`` and the finish time and mark the manifest complete; returns it."""
    record_files(manifest, files)
    manifest["finished_at"] = datetime.now(UTC).isoformat()
    manifest["status"] = "complete"
    return manifest
