"""Exception and warning hierarchy of assay.

Every error raised on purpose by assay derives from :class:`AssayError`, so callers can catch one
type. Messages name the offending file, row and field where there is one.
"""

from __future__ import annotations


class AssayError(Exception):
    """Root of every error raised on purpose by assay."""


class InvalidInputError(AssayError, ValueError):
    """Input data or a parameter is invalid; the message names file, row and field when known."""


class MissingDependencyError(AssayError, ImportError):
    """An optional dependency is missing; the message gives the exact ``pip install`` command."""


class BackendError(AssayError, RuntimeError):
    """A model, judge or system-under-test backend failed."""


class JudgeParseError(BackendError):
    """A judge's output could not be parsed into the expected structure."""


class NotFittedError(AssayError, RuntimeError):
    """An estimator was used before it was fitted (or conformalized)."""


class IncompleteRunError(InvalidInputError):
    """A run directory is incomplete (interrupted), altered or corrupt; readers refuse it."""


class RunDirectoryError(AssayError, OSError):
    """A run directory cannot be written where asked (read-only, under a file, a symlink, disk
    full, or locked by another ``assay evaluate``); raised before any work is lost."""


class RunLockedError(RunDirectoryError):
    """Another process is writing the same run directory."""


class AssayWarning(UserWarning):
    """Warnings emitted by assay itself (turned into errors in assay's own test-suite)."""


def require(module: str, extra: str, package: str | None = None) -> object:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the install command.

    Args:
        module: Dotted module name to import.
        extra: The assay extra that provides it.
        package: The PyPI distribution name when it differs from ``module``.

    Example:
        >>> require("json", extra="core").__name__
        'json'
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        pkg = package or module.split(".")[0]
        raise MissingDependencyError(
            f"{module!r} is required for this feature but is not installed. "
            f"Install it with: pip install 'assay[{extra}]'  (or: pip install {pkg})"
        ) from exc
