"""Creating, locking and committing a run directory (design note 0021).

A run is written into a hidden work directory beside its destination (``.NAME.partial-*``) and
moved into place only when complete, so a reader never sees half a run:

- **One writer per destination.** An exclusive lock on ``.NAME.lock`` (``flock``, released by the
  kernel when the process dies, even by SIGKILL) is taken before anything is written; a second
  ``assay evaluate`` on the same ``--out`` fails at once with :class:`RunLockedError`. The
  holder deletes the lock file when done; a killed writer's file is simply reused.
- **Replacing swaps, never deletes first.** With ``overwrite``, the finished run and the old one
  are exchanged in one ``renameat2(RENAME_EXCHANGE)`` call, so at every instant the destination
  holds either the old complete run or the new complete run; the old one, now in the work
  directory's place, is removed afterwards.
- **Stale work directories are removed** when the lock is taken: a ``.NAME.partial-*`` can only
  outlive its writer, since the writer held the lock that we now hold.
- **Problems come first.** A destination under a file, on a read-only file system, a dangling
  symlink, or a symlink to be overwritten is a :class:`RunDirectoryError` before any scoring.
- Directories and files follow the process umask (teams share runs through a group).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from assay.errors import InvalidInputError, RunDirectoryError, RunLockedError
from assay.fileio import follow_umask

logger = logging.getLogger(__name__)

#: ``renameat2`` flag: exchange the two paths atomically (Linux ≥ 3.15).
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def partial_prefix(out: Path) -> str:
    """Name prefix of the work directories of the run ``out``."""
    return f".{out.name}.partial-"


def lock_path(out: Path) -> Path:
    """The lock file of the run ``out`` (beside it, so it survives the swap)."""
    return out.parent / f".{out.name}.lock"


def _exchange(a: Path, b: Path) -> None:
    """Atomically exchange the directory entries ``a`` and ``b`` (both must exist).

    Where the system cannot (no ``renameat2``, or a file system without ``RENAME_EXCHANGE``),
    falls back to two renames through a hidden name: a kill between them leaves the old run
    under that name and nothing at ``b`` (logged as a warning; Linux local file systems never
    take this path).
    """
    try:
        _renameat2_exchange(a, b)
    except (AttributeError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno not in (errno.EINVAL, errno.ENOSYS):
            raise
        logger.warning("atomic exchange unavailable (%s); replacing %s in two renames", exc, b)
        aside = b.with_name(f".{b.name}.old-{os.getpid()}")
        os.rename(b, aside)
        os.rename(a, b)
        os.rename(aside, a)


def _renameat2_exchange(a: Path, b: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    rename = libc.renameat2
    rename.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    rename.restype = ctypes.c_int
    if rename(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(b))


class RunDirectory:
    """A run directory written under a temporary name and moved into place when complete.

    Args:
        out: the final directory; None keeps the run in a temporary directory only.
        overwrite: replace an existing run at ``out``.

    Raises:
        InvalidInputError: ``out`` exists and ``overwrite`` is not set.
        RunLockedError: another process is writing ``out``.
        RunDirectoryError: ``out`` cannot be written (see the module docstring).
    """

    def __init__(self, out: Path | None, overwrite: bool) -> None:
        self.final = out
        self._lock: IO[bytes] | None = None
        if out is None:
            self.work = follow_umask(Path(tempfile.mkdtemp(prefix="assay-run-")))
            return
        _check_destination(out, overwrite)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            self._lock = _acquire(out)
            if out.exists() and not overwrite:  # again, under the lock
                raise InvalidInputError(
                    f"{out}: already exists (pass overwrite=True / --overwrite)"
                )
            _remove_stale(out)
            self.work = follow_umask(
                Path(tempfile.mkdtemp(prefix=partial_prefix(out), dir=out.parent))
            )
        except OSError as exc:
            self.release()
            if isinstance(exc, RunDirectoryError):
                raise
            reason = exc.strerror or str(exc)
            raise RunDirectoryError(f"{out}: cannot write the run here ({reason})") from None
        except BaseException:
            self.release()
            raise

    def commit(self) -> Path | None:
        """Move the finished run into place; return its path (None for an in-memory run).

        An existing run is exchanged with the new one in one atomic step, then removed.
        """
        if self.final is None:
            return None
        try:
            if self.final.exists():
                _exchange(self.work, self.final)  # work now holds the old run
                shutil.rmtree(self.work, ignore_errors=True)
            else:
                os.rename(self.work, self.final)
        finally:
            self.release()
        return self.final

    @contextlib.contextmanager
    def writing(self) -> Iterator[Path]:
        """Yield the work directory; on any error remove it, leaving the destination untouched.

        Raises:
            RunDirectoryError: the device filled up while the run was written.
        """
        try:
            yield self.work
        except OSError as exc:
            self.discard()
            if _out_of_space(exc):
                raise RunDirectoryError(
                    f"{self.final or self.work}: no space left on the device while writing the "
                    "run; nothing was replaced (free some space and run again)"
                ) from exc
            raise
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Remove the work directory and release the lock."""
        shutil.rmtree(self.work, ignore_errors=True)
        self.release()

    def release(self) -> None:
        """Delete the lock file, then release the lock (idempotent). A writer killed before
        this leaves the file; the kernel released its lock, so the next writer reuses it."""
        if self._lock is None:
            return
        if self.final is not None:
            lock_path(self.final).unlink(missing_ok=True)  # still held: no one else can own it
        self._lock.close()  # closing the descriptor releases the flock
        self._lock = None


def _check_destination(out: Path, overwrite: bool) -> None:
    """Refuse, before any work, a destination that cannot end as a run directory."""
    if out.is_symlink():
        if not out.exists():
            raise RunDirectoryError(f"{out}: is a dangling symbolic link; give another --out")
        if overwrite:
            raise RunDirectoryError(
                f"{out}: is a symbolic link; --overwrite replaces directories only (give the "
                f"real path, {out.resolve()})"
            )
    if out.exists() and not out.is_dir():
        raise RunDirectoryError(f"{out}: exists and is not a directory")
    ancestor = next((p for p in out.parents if p.exists()), None)
    if ancestor is not None and not ancestor.is_dir():
        raise RunDirectoryError(f"{out}: {ancestor} is not a directory")
    if out.exists() and not overwrite:
        raise InvalidInputError(f"{out}: already exists (pass overwrite=True / --overwrite)")


def _acquire(out: Path) -> IO[bytes]:
    """Take the exclusive lock of ``out`` or fail at once.

    The holder deletes the lock file when it is done (:meth:`RunDirectory.release`), so a lock
    taken on a file that is no longer at the path (deleted or replaced in between) is not the
    lock: we try again on the current file.
    """
    path = lock_path(out)
    while True:
        handle = path.open("ab")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.close()
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise RunLockedError(
                    f"{out}: another assay process is writing this run directory (lock "
                    f"{path}); wait for it or choose another --out"
                ) from None
            raise
        if _same_file(handle, path):
            return handle
        handle.close()


def _same_file(handle: IO[bytes], path: Path) -> bool:
    try:
        current = path.stat()
    except FileNotFoundError:
        return False
    held = os.fstat(handle.fileno())
    return (held.st_dev, held.st_ino) == (current.st_dev, current.st_ino)


def _remove_stale(out: Path) -> None:
    """Remove work directories left by killed writers of ``out`` (we hold its lock)."""
    prefix = partial_prefix(out)
    for stale in out.parent.iterdir():
        if stale.name.startswith(prefix) and stale.is_dir() and not stale.is_symlink():
            logger.info("removing %s, left by an interrupted run", stale)
            shutil.rmtree(stale, ignore_errors=True)


def _out_of_space(exc: OSError) -> bool:
    """Whether ``exc`` says the device is full (pyarrow's IO errors carry no errno)."""
    return exc.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left on device" in str(exc)
