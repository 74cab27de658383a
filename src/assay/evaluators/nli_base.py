"""Shared machinery of the NLI evaluators (``nli_*.py``); registers nothing.

Every NLI evaluator takes its model by injection (an :class:`NLIModel` or a spec string: a
Hugging Face name or a local folder), resolves it lazily and once, and never pickles it. All
(premise, hypothesis) pairs of a batch go to the model in one call, deduplicated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from assay.backends.embed import CachedEmbedder
from assay.backends.nli import DEFAULT_NLI, NLIModel, NLIScores, get_nli
from assay.backends.nli.head_nli import HeadNLI
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, problem
from assay.evaluators.claim_sentences import scored_sentences, skip_reason, with_set_aside
from assay.evaluators.embedding_base import chunk_sentences, single_threaded_blas
from assay.evaluators.explain import quote, rounded
from assay.evaluators.resolved import ResolvesOnce
from assay.params import check

#: What an NLI evaluator's plan of one case holds (its texts and the rows of its pairs).
Plan = TypeVar("Plan")

__all__ = ["NLIEvaluator", "PairCollector", "quote", "rounded"]


class NLIEvaluator(ResolvesOnce, Evaluator):
    """Base of the NLI evaluators: injected model, batched pair scoring."""

    family = "nli"
    extra = "nli"
    #: Which answer sentences are scored (:mod:`assay.evaluators.claim_sentences`).
    sentences: str = "all"

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

    @property
    def needs_tokens(self) -> bool:
        """Whether the model reads token matrices (the token NLI head): the engine's encoding
        pass then keeps them, so scoring encodes nothing more."""
        model = self.resolved_nli()
        return isinstance(model, HeadNLI) and model.reads_tokens

    def texts_to_encode(self, case: TestCase) -> list[str]:
        """The sentences the head embeds when scoring ``case``: the answer's scored ones and the
        context's (an NLI head embeds premises and hypotheses sentence by sentence)."""
        answer = scored_sentences(case, self.sentences)[0]
        return answer + chunk_sentences(case.retrieved_context)[0]

    def score_planned(
        self,
        cases: Sequence[TestCase],
        plan: Callable[[TestCase, PairCollector], Plan | str | CaseResult],
        result: Callable[[Plan, NLIScores], CaseResult],
    ) -> list[CaseResult]:
        """Plan every case (``plan`` adds its pairs to one collector, or returns why the case is
        skipped, or its result when it needs no pair), score all pairs of the batch in one model
        call, then turn each plan into its ``result``."""
        pairs = PairCollector()
        plans = [plan(case, pairs) for case in cases]
        if pairs.premises:
            with single_threaded_blas():  # a head's products are small (torch is unaffected)
                scores: NLIScores | None = pairs.score(self.resolved_nli())
        else:
            scores = None
        out: list[CaseResult] = []
        for case, planned in zip(cases, plans, strict=True):
            if isinstance(planned, str):
                out.append(CaseResult.skipped(self.metric_names(), planned))
                continue
            if not isinstance(planned, CaseResult):
                assert scores is not None  # a planned case added pairs
                planned = result(planned, scores)
            out.append(with_set_aside(planned, scored_sentences(case, self.sentences)[1]))
        return out


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


#: The plan of a case scored sentence by sentence against the context: the answer's sentences
#: and, per sentence, the rows of its (passage, sentence) pairs.
SentencePlan = tuple[list[str], list[list[int]]]


def plan_sentences(
    case: TestCase, pairs: PairCollector, unit: str = "sentences", mode: str = "all"
) -> SentencePlan | str:
    """Pair every answer sentence (hypothesis) with every passage of the context (premise):
    the sentences and, per sentence, the rows of its pairs; or why the case is skipped (the
    sentences are called ``unit`` there). ``mode="claims"`` pairs only the answer's claims
    (:mod:`assay.evaluators.claim_sentences`).

    Example:
        >>> pairs = PairCollector()
        >>> case = TestCase(id="1", actual_answer="The fee is low. It is waived.",
        ...                 retrieved_context=["Fees are low.", "Waivers exist."])
        >>> plan_sentences(case, pairs)
        (['The fee is low.', 'It is waived.'], [[0, 1], [2, 3]])
        >>> plan_sentences(TestCase(id="2", actual_answer="", retrieved_context=["C."]), pairs,
        ...                "claims")
        'the answer has no claims'
    """
    sentences, set_aside = scored_sentences(case, mode)
    chunks = chunks_of(case.retrieved_context)
    reason = skip_reason(sentences, set_aside, unit)
    if reason:
        return reason
    if not chunks:
        return "the context is empty"
    return sentences, [pairs.add(chunks, s) for s in sentences]


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

