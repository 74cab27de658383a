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
    files: list[Path],
    started: datetime,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Assemble the manifest dict; ``files`` are hashed so later tampering is detectable."""
    return {
        "schema_version": SCHEMA_VERSION,
        "assay_version": __version__,
        "status": "complete",
        "started_at": started.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "seed": seed,
        "input": suite_info,
        "evaluators": evaluators,
        "thresholds": thresholds,
        "timings_s": timings,
        "files": {p.name: sha256_file(p) for p in files},
        **(extra or {}),
    }
