"""Summary-level ROUGE-L (``rougeLsum``) exactly as ``rouge-score`` computes it.

Each reference sentence is matched against every candidate sentence; the union of the token
positions of their longest common subsequences counts as hits, each token at most as often as it
occurs in both summaries (Lin 2004, §3.2; ``rouge_score.rouge_scorer._summary_level_lcs``). The
LCS back-tracking follows ``rouge-score`` step for step, because its tie-breaking decides which
positions join the union.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def _lcs_positions(ref: Sequence[str], can: Sequence[str]) -> list[int]:
    """Positions in ``ref`` of one LCS with ``can`` (rouge-score's table and back-tracking)."""
    rows, cols = len(ref), len(can)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        row, above, token = table[i], table[i - 1], ref[i - 1]
        for j in range(1, cols + 1):
            if token == can[j - 1]:
                row[j] = above[j - 1] + 1
            else:
                row[j] = row[j - 1] if row[j - 1] > above[j] else above[j]
    i, j = rows, cols
    positions: list[int] = []
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            positions.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return positions[::-1]


def summary_lcs(
    reference: Sequence[Sequence[str]], candidate: Sequence[Sequence[str]]
) -> tuple[int, int, int]:
    """``(hits, reference tokens, candidate tokens)`` of summary-level LCS over sentence lists.

    Example:
        >>> summary_lcs([["a", "b", "c"], ["d", "e"]], [["a", "c"], ["e", "d"]])
        (3, 5, 4)
    """
    m = sum(len(s) for s in reference)
    n = sum(len(s) for s in candidate)
    if not m or not n:
        return 0, m, n
    left_ref: Counter[str] = Counter()
    left_can: Counter[str] = Counter()
    for sentence in reference:
        left_ref.update(sentence)
    for sentence in candidate:
        left_can.update(sentence)
    hits = 0
    for sentence in reference:
        union: set[int] = set()
        for other in candidate:
            union.update(_lcs_positions(sentence, other))
        for position in sorted(union):
            token = sentence[position]
            if left_can[token] > 0 and left_ref[token] > 0:
                hits += 1
                left_can[token] -= 1
                left_ref[token] -= 1
    return hits, m, n
