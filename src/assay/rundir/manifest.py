"""The run manifest: everything needed to reproduce, re-score or compare a run (DESIGN §9)."""

from __future__ import annotations

import json
import platform
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, cast

from assay._version import __version__
from assay.errors import IncompleteRunError
from assay.fileio import sha256_file
from assay.rundir.layout import MANIFEST_FILE, RESULTS_FILE, VERIFIED_FILES
from assay.rundir.records import Manifest

#: 2: the suite copy is ``suite.parquet`` (compressed), no longer ``suite.jsonl``.
SCHEMA_VERSION = 2
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
) -> Manifest:
    """Assemble the manifest of a run still being written (``status`` ``"partial"``).

    Reports written into the run read their run details from it; :func:`finish_manifest` then
    records the files and marks it complete, just before it is written (last) to the run.

    Example:
        >>> m = build_manifest(suite_info={"path": "s.jsonl"}, evaluators=[], thresholds={},
        ...                    seed=3, timings={}, started=datetime.now(UTC))
        >>> m["status"], m["seed"], m["files"], m["assay_version"] == __version__
        ('partial', 3, {}, True)
    """
    manifest: Manifest = {
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
    }
    manifest.update(extra or {})  # type: ignore[typeddict-item]  # executor, calibrators
    return manifest


def record_files(manifest: Manifest, files: list[Path]) -> Manifest:
    """Add (or refresh) the sha256 of ``files`` in ``manifest["files"]``, so later tampering is
    detectable; returns the manifest."""
    manifest.setdefault("files", {}).update({p.name: sha256_file(p) for p in files})
    return manifest


def finish_manifest(manifest: Manifest, files: list[Path]) -> Manifest:
    """Record ``files`` and the finish time and mark the manifest complete; returns it."""
    record_files(manifest, files)
    manifest["finished_at"] = datetime.now(UTC).isoformat()
    manifest["status"] = "complete"
    return manifest


def verify_run(root: Path) -> Manifest:
    """Read the manifest of the run directory ``root`` and check the run is complete and intact.

    Checks, each failing with :class:`~assay.errors.IncompleteRunError` naming the run and the
    file: the manifest exists, parses and says ``complete``; every file it lists that readers rely
    on (:data:`~assay.rundir.layout.VERIFIED_FILES`) exists and still has its recorded sha256.
    Rendered reports are not checked (``assay report`` rebuilds them from the data).

    Returns:
        The manifest.
    """
    path = root / MANIFEST_FILE
    if not root.is_dir():
        raise IncompleteRunError(f"{root}: not a complete run directory (no such directory)")
    if not path.is_file():
        raise IncompleteRunError(
            f"{root}: not a complete run directory (no {MANIFEST_FILE}; was the run interrupted?)"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IncompleteRunError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("status") != "complete":
        raise IncompleteRunError(
            f"{root}: the run is not complete (manifest status is not 'complete')"
        )
    files = manifest.get("files")
    if not isinstance(files, dict) or RESULTS_FILE not in files:
        raise IncompleteRunError(f"{path}: the manifest lists no files of the run")
    for name, digest in files.items():
        if name not in VERIFIED_FILES:  # a rendered report: `assay report` rebuilds it
            continue
        file = root / name
        if not file.is_file():
            raise IncompleteRunError(f"{root}: {name} is missing (the manifest lists it)")
        if sha256_file(file) != digest:
            raise IncompleteRunError(
                f"{file}: changed since the run was written (sha256 differs from the manifest)"
            )
    return cast(Manifest, manifest)
