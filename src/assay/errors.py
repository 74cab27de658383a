"""Exception hierarchy of assay: every exception class assay defines lives here.

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


class ConditionSyntaxError(InvalidInputError):
    """A condition does not follow the grammar; names the position and what was expected.

    Attributes:
        condition: The condition text.
        position: 0-based character offset of the problem.
        expected: What the parser expected there.
        found: What it found instead.
    """

    def __init__(self, condition: str, position: int, expected: str, found: str) -> None:
        self.condition = condition
        self.position = position
        self.expected = expected
        self.found = found
        line = condition.replace("\n", " ").replace("\t", " ")
        lo = max(0, position - 60)
        snippet = line[lo : position + 60]
        caret = " " * (position - lo) + "^"
        super().__init__(
            f"syntax error in condition at position {position}: expected {expected}, "
            f"found {found}\n  {snippet}\n  {caret}"
        )


class RegexTimeoutError(AssayError, TimeoutError):
    """A regular-expression search ran past its time limit."""


class PathError(AssayError, LookupError):
    """A response path does not exist in the data."""


class TargetError(BackendError):
    """The system under test failed to answer one case.

    Args:
        message: a one-line human reason (recorded with the case).
        kind: one of :data:`assay.runner.connectors.base.ERROR_KINDS`.
        retryable: whether trying again may help (timeouts, 5xx, 429, lost connections).
        retry_after_s: a server-requested wait before the next try (``Retry-After``).
    """

    def __init__(
        self, message: str, *, kind: str, retryable: bool, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class PlaceholderError(AssayError, ValueError):
    """A generated item repeats a placeholder of the prompt's example (dropped as
    ``placeholder``, never kept)."""


class TransientBackendError(BackendError):
    """A failure worth retrying: HTTP 429, a 5xx status, a timeout or a dropped connection.

    ``retry_after`` is the server's requested wait in seconds (``Retry-After``), when given.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RunGateError(AssayError, AssertionError):
    """Raised by :func:`assert_run_passes` when a run misses its thresholds."""


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
