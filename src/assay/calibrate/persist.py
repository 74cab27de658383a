"""Calibrator files: versioned, hashed JSON (no pickle, so loading never runs code)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from assay._version import __version__
from assay.calibrate.base import Calibrator
from assay.errors import InvalidInputError
from assay.fileio import write_json
from assay.registry import GROUPS, Registry

FORMAT = "assay.calibrator"
FORMAT_VERSION = 1
#: The calibration methods (imported on first use); plugins add theirs through the entry-point
#: group ``assay.calibrators`` (a :class:`~assay.calibrate.base.Calibrator` subclass).
KINDS: Registry[type[Calibrator]] = Registry("calibration method", GROUPS["calibrator"])
KINDS.register_lazy("logistic", "assay.calibrate.binary:LogisticCalibrator")
KINDS.register_lazy("isotonic", "assay.calibrate.binary:IsotonicCalibrator")
KINDS.register_lazy("ordinal", "assay.calibrate.ordinal:OrdinalCalibrator")
KINDS.register_lazy("monotone", "assay.calibrate.monotone:MonotoneBoostingCalibrator")


def calibrator_class(kind: str) -> type[Calibrator]:
    """The calibrator class registered under ``kind``.

    Example:
        >>> calibrator_class("isotonic").__name__
        'IsotonicCalibrator'
    """
    return KINDS.get(kind)


def make_calibrator(kind: str, **params: Any) -> Calibrator:
    """Build an unfitted calibrator by method name.

    Example:
        >>> make_calibrator("logistic", metrics=["token_f1"])
        LogisticCalibrator(metrics=['token_f1'])
    """
    return calibrator_class(kind)(**params)


def _digest(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def calibrator_to_dict(calibrator: Calibrator) -> dict[str, Any]:
    """The file contents for ``calibrator`` (body plus its sha256)."""
    body = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "assay_version": __version__,
        "kind": calibrator.kind,
        "params": calibrator.get_params(),
        "state": calibrator.state(),
    }
    return {**body, "sha256": _digest(body)}


def calibrator_from_dict(data: Any, source: str = "<dict>") -> Calibrator:
    """Rebuild a calibrator from :func:`calibrator_to_dict` output, checking format and hash."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInputError(f"{source}: not an assay calibrator file (no format {FORMAT!r})")
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise InvalidInputError(
            f"{source}: calibrator file format version {version!r} (written by assay "
            f"{data.get('assay_version')}) cannot be read by assay {__version__}, which reads "
            f"version {FORMAT_VERSION}; re-run 'assay calibrate' with this version"
        )
    body = {k: v for k, v in data.items() if k != "sha256"}
    if data.get("sha256") != _digest(body):
        raise InvalidInputError(
            f"{source}: the calibrator's content hash does not match; the file was modified or "
            "is corrupt"
        )
    try:
        calibrator = make_calibrator(str(data["kind"]), **data["params"])
        calibrator.set_state(data["state"])
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInputError(f"{source}: malformed calibrator file ({exc!r})") from exc
    return calibrator


def save_calibrator(calibrator: Calibrator, path: str | Path) -> Path:
    """Write ``calibrator`` to ``path`` (JSON, atomically) and return the path."""
    return write_json(path, calibrator_to_dict(calibrator))


def load_calibrator(path: str | Path) -> Calibrator:
    """Load a calibrator written by :func:`save_calibrator` / ``assay calibrate``.

    Raises :class:`~assay.errors.InvalidInputError` when the file is not a calibrator, was written
    in an incompatible format version, or its content hash does not match.

    Example:
        >>> import tempfile, pathlib
        >>> from assay.calibrate import LogisticCalibrator
        >>> cal = LogisticCalibrator(metrics=["m"]).fit([0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1])
        >>> path = cal.save(pathlib.Path(tempfile.mkdtemp()) / "cal.json")
        >>> load_calibrator(path).predict_pass_proba([0.5]).round(6).tolist() == (
        ...     cal.predict_pass_proba([0.5]).round(6).tolist())
        True
    """
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInputError(f"{file}: calibrator file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{file}: not a JSON calibrator file ({exc})") from None
    return calibrator_from_dict(data, str(file))
