"""Shared machinery of the NLI evaluators (``nli_*.py``); registers nothing.

Every NLI evaluator takes its model by injection (an :class:`NLIModel` or a spec string: a
Hugging Face name or a local folder), resolves it lazily and once, and never pickles it. All
(premise, hypothesis) pairs of a batch go to the model in one call, deduplicated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.embed import CachedEmbedder
from assay.backends.nli import DEFAULT_NLI, NLIModel, NLIScores, get_nli
from assay.backends.nli.head_nli import HeadNLI
from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, problem
from assay.evaluators.embedding_base import chunk_sentences, quote, rounded, sentences_of
from assay.evaluators.resolved import ResolvesOnce
from assay.params import check

__all__ = ["NLIEvaluator", "PairCollector", "quote", "rounded"]


class NLIEvaluator(ResolvesOnce, Evaluator):
    """Base of the NLI evaluators: injected model, batched pair scoring."""

    family = "nli"
    extra = "nli"
    default_model = DEFAULT_NLI

    def __init__(self, nli: str | NLIModel = DEFAULT_NLI) -> None:
        check(isinstance(nli, str | NLIModel), "nli", type(self).__name__,
              "a model name, a folder path, 'fake' or an NLIModel", nli)
        self.nli = nli

    def resolved_nli(self) -> NLIModel:
        """The model behind ``self.nli`` (loaded on first use)."""
        return self.resolve_once(lambda: get_nli(self.nli))

    def model_name(self) -> str:
        """The model identity, for details."""
        return str(self.resolved_nli().model_id)

    def embedder_for_prefetch(self) -> CachedEmbedder | None:
        """The embedder whose vectors the model reads (the shipped head's MiniLM), so the
        engine's one encoding pass (design note 0004) covers this evaluator too; None for a
        cross-encoder, which reads text."""
        model = self.resolved_nli()
        return model.resolved_embedder() if isinstance(model, HeadNLI) else None

    def texts_to_encode(self, case: TestCase) -> list[str]:
        """The sentences the head embeds when scoring ``case``: the answer's and the context's
        (an NLI head embeds premises and hypotheses sentence by sentence)."""
        return sentences_of(case.actual_answer) + chunk_sentences(case.retrieved_context)[0]


class PairCollector:
    """Collects (premise, hypothesis) pairs of many cases, scores them in one model call.

    Example:
        >>> from assay.backends.nli.fake import FakeNLI
        >>> pairs = PairCollector()
        >>> rows = pairs.add(["It rains.", "It snows."], "It rains.")
        >>> scores = pairs.score(FakeNLI())
        >>> scores.subset(rows).prob("entailment").round(2).tolist()
        [0.91, 0.02]
    """

    def __init__(self) -> None:
        self.premises: list[str] = []
        self.hypotheses: list[str] = []

    def add(self, premises: Sequence[str], hypothesis: str) -> list[int]:
        """Add one pair per premise with the same hypothesis; return their row numbers."""
        start = len(self.premises)
        self.premises.extend(premises)
        self.hypotheses.extend([hypothesis] * len(premises))
        return list(range(start, len(self.premises)))

    def add_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[int]:
        """Add explicit (premise, hypothesis) pairs; return their row numbers."""
        start = len(self.premises)
        for premise, hypothesis in pairs:
            self.premises.append(premise)
            self.hypotheses.append(hypothesis)
        return list(range(start, len(self.premises)))

    def score(self, model: NLIModel) -> NLIScores:
        """One model call over every collected pair."""
        return model.predict(self.premises, self.hypotheses)


def chunks_of(context: Sequence[str] | None) -> list[str]:
    """The non-empty retrieved passages.

    Example:
        >>> chunks_of(["A.", " ", "B."])
        ['A.', 'B.']
    """
    return [c for c in (context or []) if c and c.strip()]


def probs_dict(scores: NLIScores, row: int) -> dict[str, float]:
    """``{label: probability}`` of one row, rounded."""
    return {label: round(float(p), 4) for label, p in zip(scores.labels, scores.probs[row],
                                                         strict=True)}


def best(values: np.ndarray) -> tuple[int, float]:
    """Index and value of the maximum."""
    index = int(np.argmax(values))
    return index, float(values[index])


def truncation_problems(scores: NLIScores, rows: Sequence[Sequence[int]] | np.ndarray) -> list[
        dict[str, str]]:
    """A ``token_limit`` problem when any of the case's pairs (``rows`` of ``scores``) was cut
    to the NLI model's input length, else none (it reaches the run's ``problems.json``)."""
    cut = int(sum(int(np.asarray(scores.truncated)[np.asarray(r, dtype=int)].sum())
                  for r in rows))
    if not cut:
        return []
    return [problem("token_limit", f"{cut} (premise, hypothesis) pairs over the NLI model's "
                                   "input limit were cut to it: the cut text was not read")]

