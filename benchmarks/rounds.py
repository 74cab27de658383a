"""Interleaved timing rounds shared by the speed benchmarks: wall and CPU seconds, medians.

On a machine shared with other work, wall time measures the neighbours as much as the code;
each round therefore runs every contender once, one after the other (the order rotating from
round to round), and both wall and process CPU seconds are kept, so a table can report the CPU
ratio where wall time is distorted. The load average is recorded before and after.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass
class Timing:
    """The seconds of one contender, one entry per round."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def median_wall(self) -> float:
        return statistics.median(self.wall)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)


def interleaved(
    contenders: Mapping[str, Callable[[int], object]], rounds: int
) -> dict[str, Timing]:
    """Time each contender once per round, interleaved; ``run(round_index)`` does the work (a
    contender builds its own distinct inputs for each round outside the timed part when it
    wants, e.g. through a generator it advances before timing).

    Example:
        >>> t = interleaved({"a": lambda r: sum(range(1000)), "b": lambda r: None}, 3)
        >>> len(t["a"].wall), t["b"].median_cpu >= 0
        (3, True)
    """
    timings = {name: Timing() for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            wall, cpu = time.perf_counter(), time.process_time()
            contenders[name](r)
            timings[name].cpu.append(time.process_time() - cpu)
            timings[name].wall.append(time.perf_counter() - wall)
    return timings


def load_average() -> float:
    """The one-minute load average."""
    return os.getloadavg()[0]


def machine_note(load_before: float, load_after: float) -> str:
    """One sentence: CPUs and the load average around the measurement.

    Example:
        >>> machine_note(1.0, 2.5).startswith("load average 1.0 before, 2.5 after")
        True
    """
    return (
        f"load average {load_before:.1f} before, {load_after:.1f} after, on "
        f"{os.cpu_count()} CPUs shared with other work"
    )
