"""The longest repeated substring of a text, via a suffix array built by prefix doubling.

O(n log² n) time and O(n log n) memory with numpy (no O(n²) suffix comparisons, no O(n³) scan):
ranks of every suffix's first 2^k characters are refined by sorting pairs of ranks, and the
longest common prefix of suffixes adjacent in sorted order is then found for all pairs at once by
binary lifting over those rank tables. The longest of these prefixes is the longest substring that
occurs at least twice (occurrences may overlap).
"""

from __future__ import annotations

import numpy as np


def _rank_tables(codes: np.ndarray) -> list[np.ndarray]:
    """``tables[k][i]`` ranks ``text[i:i + 2**k]`` (equal ranks ⇔ equal strings)."""
    n = len(codes)
    _, rank = np.unique(codes, return_inverse=True)
    rank = rank.astype(np.int64)
    tables = [rank]
    step = 1
    while step < n and int(rank.max()) < n - 1:
        second = np.zeros(n, dtype=np.int64)
        second[: n - step] = rank[step:] + 1  # 0 marks "past the end"
        key = rank * (n + 1) + second
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        new_rank = np.empty(n, dtype=np.int64)
        new_rank[order] = np.concatenate(([0], np.cumsum(sorted_key[1:] != sorted_key[:-1])))
        rank = new_rank
        tables.append(rank)
        step *= 2
    return tables


def longest_repeated_substring(text: str) -> str:
    """The longest substring occurring at least twice in ``text`` (the leftmost-sorted one on
    ties); ``""`` when no character repeats.

    Example:
        >>> longest_repeated_substring("banana")
        'ana'
        >>> longest_repeated_substring("abc")
        ''
    """
    n = len(text)
    if n < 2:
        return ""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    tables = _rank_tables(codes)
    suffixes = np.argsort(tables[-1], kind="stable")
    a, b = suffixes[:-1], suffixes[1:]
    lcp = np.zeros(n - 1, dtype=np.int64)
    for k in range(len(tables) - 1, -1, -1):
        step = 1 << k
        pa, pb = a + lcp, b + lcp
        fits = (pa + step <= n) & (pb + step <= n)
        table = tables[k]
        same = fits & (table[np.minimum(pa, n - 1)] == table[np.minimum(pb, n - 1)])
        lcp += step * same
    best = int(np.argmax(lcp))
    length = int(lcp[best])
    start = int(a[best])
    return text[start : start + length]
