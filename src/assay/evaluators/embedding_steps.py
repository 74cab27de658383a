"""Step alignment: does the answer give the context's procedure steps, in order?

Numbered or bulleted steps are extracted from the context and the answer (an answer without list
markers contributes its sentences), embedded, and aligned by dynamic programming (edit distance
where two steps match when their similarity reaches ``match_threshold``). The alignment yields
matches, mismatches (aligned but dissimilar steps), insertions (answer steps not in the context)
and deletions (context steps missing from the answer). A different extractor (e.g. an LLM step
extractor) can be passed as ``extractor``: any picklable callable text → list of steps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import (
    EmbeddingEvaluator,
    SentenceVectors,
    cosine_matrix,
    sentences_of,
    stack,
)
from assay.evaluators.explain import quote
from assay.evaluators.registry import register
from assay.params import check

_BONUS = 1e-4  # tie-breaker: smaller than any edit, so it never trades an edit for matches
_STEP = re.compile(
    r"^\s*(?:(?:step\s*)?\d{1,3}\s*[.):]|[-*•·▪‣]|\(\d{1,3}\)|[a-z][.)])\s+(?P<text>\S.*)$",
    re.IGNORECASE,
)


def extract_steps(text: str | None) -> list[str]:
    """Numbered or bulleted lines of ``text`` (``1.``, ``2)``, ``Step 3:``, ``-``, ``*``, ``•``).

    Example:
        >>> extract_steps("To close it:\\n1. Log in.\\n2) Open settings.\\n- Click close.")
        ['Log in.', 'Open settings.', 'Click close.']
    """
    steps = []
    for line in (text or "").splitlines():
        match = _STEP.match(line)
        if match:
            steps.append(match.group("text").strip())
    return steps


def align_steps(sims: np.ndarray, threshold: float) -> dict[str, Any]:
    """Edit-distance alignment of context steps (rows) to answer steps (columns).

    Substituting is free for a match (similarity ≥ ``threshold``) and costs 1 for a mismatch;
    inserting or deleting a step costs 1. Among alignments with the fewest edits, one with the
    most matches is chosen (ties then prefer the diagonal).

    Example:
        >>> r = align_steps(np.array([[0.9, 0.1], [0.2, 0.3], [0.1, 0.8]]), 0.7)
        >>> r["matches"], r["mismatches"], r["insertions"], r["deletions"], r["edits"]
        (2, 0, 0, 1, 1)
    """
    n, m = sims.shape
    match = sims >= threshold
    # cost = edits - _BONUS * matches: fewest edits first, then most matches
    cost = np.zeros((n + 1, m + 1))
    cost[:, 0] = np.arange(n + 1)
    cost[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost[i, j] = min(
                cost[i - 1, j - 1] + (-_BONUS if match[i - 1, j - 1] else 1.0),
                cost[i - 1, j] + 1,
                cost[i, j - 1] + 1,
            )
    pairs: list[tuple[int | None, int | None, str]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0:
            is_match = bool(match[i - 1, j - 1])
            if abs(cost[i, j] - cost[i - 1, j - 1] - (-_BONUS if is_match else 1.0)) < 1e-9:
                pairs.append((i - 1, j - 1, "match" if is_match else "mismatch"))
                i, j = i - 1, j - 1
                continue
        if i > 0 and abs(cost[i, j] - cost[i - 1, j] - 1.0) < 1e-9:
            pairs.append((i - 1, None, "deletion"))
            i -= 1
        else:
            pairs.append((None, j - 1, "insertion"))
            j -= 1
    pairs.reverse()
    counts = {
        k: sum(1 for p in pairs if p[2] == k)
        for k in ("match", "mismatch", "insertion", "deletion")
    }
    return {
        "edits": counts["mismatch"] + counts["insertion"] + counts["deletion"],
        "matches": counts["match"],
        "mismatches": counts["mismatch"],
        "insertions": counts["insertion"],
        "deletions": counts["deletion"],
        "pairs": pairs,
    }


@register
class EmbStepAlignment(EmbeddingEvaluator):
    """Alignment of the answer's steps with the context's steps (edit distance with semantics)."""

    name = "emb_step_alignment"
    description = (
        "Extracts numbered/bulleted steps from context and answer and aligns them by dynamic "
        "programming with semantic matching; reports alignment, completeness and edit counts."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec(
            "emb_step_alignment",
            "1 - edits / max(context steps, answer steps)",
            threshold=0.7,
            primary=True,
        ),
        MetricSpec(
            "emb_step_completeness",
            "share of the context steps matched by an answer step in order",
        ),
        MetricSpec.count(
            "emb_step_edits",
            "insertions + deletions + mismatches of the alignment",
        ),
        MetricSpec.count(
            "emb_step_insertions",
            "answer steps aligned to no context step (H2O Sonar: 'gap in original (insertion)', "
            "possible hallucination)",
        ),
        MetricSpec.count(
            "emb_step_deletions",
            "context steps aligned to no answer step (H2O Sonar: 'gap in generated (deletion)')",
        ),
        MetricSpec.count(
            "emb_step_mismatches",
            "aligned context and answer steps below match_threshold",
        ),
    )

    def __init__(
        self,
        embedder: str | Embedder = DEFAULT_SPEC,
        match_threshold: float = 0.7,
        extractor: Callable[[str], list[str]] | None = None,
    ) -> None:
        super().__init__(embedder)
        check(
            isinstance(match_threshold, int | float) and -1 <= match_threshold <= 1,
            "match_threshold",
            type(self).__name__,
            "a number in [-1, 1]",
            match_threshold,
        )
        check(
            extractor is None or callable(extractor),
            "extractor",
            type(self).__name__,
            "None or a callable text -> list of steps",
            extractor,
        )
        self.match_threshold = match_threshold
        self.extractor = extractor

    def _steps(self, text: str | None) -> list[str]:
        if self.extractor is not None:
            return [s for s in self.extractor(text or "") if s.strip()]
        return extract_steps(text)

    def _parts(self, case: TestCase) -> tuple[list[str], list[str]]:
        context = [s for chunk in case.retrieved_context or [] for s in self._steps(chunk)]
        answer = self._steps(case.actual_answer) or sentences_of(case.actual_answer)
        return context, answer

    def texts_to_encode(self, case: TestCase) -> list[str]:
        context, answer = self._parts(case)
        return context + answer

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        context, answer = self._parts(case)
        if not context:
            return "the context lists no steps"
        if not answer:
            return "the answer has no steps"
        sims = cosine_matrix(stack(vectors, context), stack(vectors, answer))
        result = align_steps(sims, self.match_threshold)
        longest = max(len(context), len(answer))
        details = {k: v for k, v in result.items() if k != "pairs"}
        details |= {
            "n_context_steps": len(context),
            "n_answer_steps": len(answer),
            "alignment": [
                {
                    "context": None if i is None else quote(context[i]),
                    "answer": None if j is None else quote(answer[j]),
                    "op": op,
                    "sim": None if i is None or j is None else round(float(sims[i, j]), 4),
                }
                for i, j, op in result["pairs"]
            ],
        }
        missing = [quote(context[i]) for i, _, op in result["pairs"] if op == "deletion"]
        explanation = (
            f"{result['matches']}/{len(context)} context steps matched in order; "
            f"{result['insertions']} inserted, {result['deletions']} missing, "
            f"{result['mismatches']} mismatched"
            + (f"; first missing: {missing[0]!r}" if missing else "")
        )
        return CaseResult.ok(
            {
                "emb_step_alignment": 1.0 - result["edits"] / longest,
                "emb_step_completeness": result["matches"] / len(context),
                "emb_step_edits": float(result["edits"]),
                "emb_step_insertions": float(result["insertions"]),
                "emb_step_deletions": float(result["deletions"]),
                "emb_step_mismatches": float(result["mismatches"]),
            },
            explanation,
            details,
        )
