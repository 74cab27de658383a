"""Handing freed memory back to the operating system between the stages of a large run.

Freed memory stays with the allocator that served it: Arrow's pool (mimalloc) keeps the pages
of decoded record batches, glibc's heap those of Python objects and numpy arrays. Neither can
serve the other, so at 100,000 cases the pages scoring freed in one were still resident while
analysis grew the other (issue 23). Between stages both are asked to return what they hold free.
What is kept across a stream of chunks is kept in few objects (:class:`Batches`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

logger = logging.getLogger(__name__)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (None on other C libraries)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


def release_memory() -> None:
    """Return free pages of Arrow's memory pool and of the C heap to the operating system.

    Only resident memory changes: nothing live is touched. A no-op where the C library has no
    ``malloc_trim``.

    Example:
        >>> release_memory()
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def use_system_allocator() -> None:
    """Let Arrow allocate from the C heap (``malloc``) for the rest of the process instead of
    its bundled mimalloc pool.

    Freed Arrow buffers (decoded record batches, Parquet pages) then return to the heap that
    Python's numpy arrays use and that :func:`release_memory` trims, instead of staying with
    mimalloc: ``assay evaluate`` peaked 60 MB lower at 10,000 cases (395 -> 335 MiB) and 50 MB
    lower at 100,000, for the same CPU time (issue 23). Process-wide, so the command line calls
    it (it owns the process); the library leaves the caller's choice alone.

    Example:
        >>> use_system_allocator()  # doctest: +SKIP
    """
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    _fixed_mmap_threshold()


#: ``mallopt`` parameter of glibc's mmap threshold (``M_MMAP_THRESHOLD`` in ``malloc.h``).
_M_MMAP_THRESHOLD = -3
#: Blocks from this size up are mapped apart and unmapped when freed.
MMAP_THRESHOLD = 256 * 1024


def _fixed_mmap_threshold() -> None:
    """Keep glibc serving blocks of :data:`MMAP_THRESHOLD` bytes and more by ``mmap``.

    glibc raises its threshold (up to 32 MB) each time a mapped block is freed, after which the
    decoded Parquet pages and column arrays of the analysis come from the heap, where a few
    long-lived objects between them keep freed pages resident that ``malloc_trim`` cannot
    return. A fixed threshold hands each such block back when it is freed: ``assay evaluate``
    of 40,000 cases peaked at 556 instead of 617 MiB, for ~6 % more CPU time (the page faults
    of the mapped blocks; a 2 MiB threshold saved less memory for no less time).
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    except (OSError, AttributeError):  # not glibc: nothing to set
        logger.debug("mallopt is not available: the C heap keeps its own thresholds")


class Batches:
    """Record batches gathered chunk by chunk, merged every :data:`MERGE_EVERY` into one.

    Each small object kept while a chunk's parsed cases are alive (a batch's Python wrapper, its
    arrays') pins the 1 MiB arena of Python's allocator it landed in after the chunk is freed:
    a batch per chunk of a million-case suite held ~250 MB resident for ~90 MB of columns. Merged,
    a few wrappers survive per :data:`MERGE_EVERY` chunks (one copy of each row per merge).

    Example:
        >>> import pyarrow as pa
        >>> batches = Batches(pa.schema([("x", pa.int64())]))
        >>> for start in range(0, 40, 2):
        ...     batches.append(pa.record_batch({"x": [start, start + 1]}))
        >>> len(batches.batches), sum(b.num_rows for b in batches.batches)
        (5, 40)
    """

    #: Chunks' batches merged into one.
    MERGE_EVERY = 16

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self._merged: list[pa.RecordBatch] = []
        self._pending: list[pa.RecordBatch] = []

    def append(self, batch: pa.RecordBatch) -> None:
        """Add the next chunk's rows."""
        import pyarrow as pa

        self._pending.append(batch)
        if len(self._pending) == self.MERGE_EVERY:
            table = pa.Table.from_batches(self._pending, schema=self.schema).combine_chunks()
            self._merged.extend(table.to_batches())
            self._pending = []

    @property
    def batches(self) -> list[pa.RecordBatch]:
        """Every row, in the order appended."""
        return [*self._merged, *self._pending]
