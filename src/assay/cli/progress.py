"""Rich progress bars for long work (the library itself never prints)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
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

console = Console(stderr=True)


@contextmanager
def progress_bar() -> Iterator[Callable[[str, int, int], None]]:
    """Yield a ``progress(task, done, total)`` callback drawing one bar per task."""
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
