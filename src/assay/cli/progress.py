"""Progress of long work: rich bars on a terminal, periodic plain lines elsewhere (CI logs,
redirected output), so a 15-minute run is never silent. The library itself never prints."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from assay.progress import ProgressCallback

console = Console(stderr=True)
#: Seconds between two plain progress lines of one task off a terminal
#: (``ASSAY_PROGRESS_INTERVAL`` overrides).
PLAIN_INTERVAL = 30.0


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("ASSAY_PROGRESS_INTERVAL", PLAIN_INTERVAL)))
    except ValueError:
        return PLAIN_INTERVAL


@contextmanager
def plain_progress(interval: float | None = None) -> Iterator[ProgressCallback]:
    """Yield a ``progress(task, done, total)`` callback writing plain lines to stderr.

    A task's first update and its completion are written at once; in between, at most one line
    per ``interval`` seconds, and a heartbeat repeats the latest state when work between two
    updates (one slow judge batch) outlasts the interval.

    Example:
        >>> with plain_progress(interval=60) as progress:  # doctest: +SKIP
        ...     progress("scoring", 1, 2)
        progress: scoring 1/2 (50%) after 0s
    """
    every = _interval() if interval is None else interval
    start = time.monotonic()
    state: dict[str, tuple[int, int]] = {}
    written: dict[str, float] = {}
    finished: set[str] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def write(name: str, now: float) -> None:
        done, total = state[name]
        share = f" ({100 * done // total}%)" if total > 0 else ""
        console.file.write(f"progress: {name} {done}/{total}{share} after {now - start:.0f}s\n")
        console.file.flush()
        written[name] = now

    def update(name: str, done: int, total: int) -> None:
        with lock:
            now = time.monotonic()
            if name in finished:
                return
            state[name] = (done, total)
            complete = total > 0 and done >= total
            if complete:
                finished.add(name)
            if complete or name not in written or now - written[name] >= every:
                write(name, now)

    def heartbeat() -> None:
        while not stop.wait(max(every, 0.05)):
            with lock:
                now = time.monotonic()
                for name in [n for n in state if n not in finished]:
                    if now - written[name] >= every:
                        write(name, now)

    beat = threading.Thread(target=heartbeat, name="assay-progress", daemon=True)
    beat.start()
    try:
        yield update
    finally:
        stop.set()
        beat.join()


@contextmanager
def progress_bar() -> Iterator[ProgressCallback]:
    """Yield a ``progress(task, done, total)`` callback drawing one bar per task on a terminal,
    or writing periodic plain lines (:func:`plain_progress`) when stderr is not one."""
    if not console.is_terminal:
        with plain_progress() as update:
            yield update
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bars:
        tasks: dict[str, TaskID] = {}

        def update(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bars.add_task(name, total=total)
            bars.update(tasks[name], completed=done, total=total)

        yield update
