"""SummaC (Laban et al., 2022) for summaries: the answer is the summary of the source document.

The document is read from the field named by ``source`` (the retrieved context by default; see
:mod:`assay.evaluators.summary_source`).

Both variants build the sentence-level NLI matrix (premise = document sentence, hypothesis =
summary sentence). **SummaC-ZS**: per summary sentence, the max over document sentences of
P(entailment) − P(contradiction); the score is the mean over summary sentences, in [−1, 1].
**SummaC-Conv**: per summary sentence, a histogram of P(entailment) over document sentences,
scored by the trained convolution weights (:mod:`assay.backends.nli.summac_conv`), in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.nli import CONTRADICTION, DEFAULT_NLI, ENTAILMENT, NLIModel, NLIScores
from assay.data.case import TestCase
from assay.errors import BackendError
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.explain import quote, rounded
from assay.evaluators.nli_base import NLIEvaluator, PairCollector
from assay.evaluators.registry import register
from assay.evaluators.summary_source import DEFAULT_SUMMARY_SOURCE, check_source, source_chunks
from assay.params import check
from assay.text.sentences import split_sentences

Plan = tuple[list[str], list[str], list[int]]


def _matrix(values: np.ndarray, plan: Plan) -> np.ndarray:
    """``(n_document, n_summary)`` matrix of per-pair values."""
    document, summary, rows = plan
    return values[rows].reshape(len(summary), len(document)).T


class _SummaC(NLIEvaluator):
    requires = (DEFAULT_SUMMARY_SOURCE, "actual_answer")

    def __init__(self, nli: str | NLIModel = DEFAULT_NLI,
                 source: str = DEFAULT_SUMMARY_SOURCE) -> None:
        super().__init__(nli)
        self.source = check_source(source, type(self).__name__)
        self.requires = (self.source, "actual_answer")  # type: ignore[misc]

    def texts_to_encode(self, case: TestCase) -> list[str]:
        """Document (``source``) and summary (answer) sentences, for the head's prefetch."""
        document = [s for chunk in source_chunks(case, self.source) for s in split_sentences(chunk)]
        return document + split_sentences(case.actual_answer)

    def _plan(self, case: TestCase, pairs: PairCollector) -> Plan | str:
        document = [s for chunk in source_chunks(case, self.source) for s in split_sentences(chunk)]
        summary = split_sentences(case.actual_answer)
        if not summary:
            return "the summary (answer) has no sentences"
        if not document:
            return f"the document ({self.source}) has no sentences"
        return document, summary, pairs.add_pairs([(d, s) for s in summary for d in document])


@register
class NLISummaCZS(_SummaC):
    """SummaC-ZS: mean over summary sentences of max over document sentences of P(e) − P(c)."""

    name = "nli_summac_zs"
    description = (
        "SummaC-ZS: sentence-level NLI matrix document x summary; max over document sentences "
        "of P(entailment) - P(contradiction), mean over summary sentences."
    )
    metrics = (
        MetricSpec("nli_summac_zs", "SummaC-ZS consistency of the summary with the document",
                   range=(-1.0, 1.0), threshold=0.0, primary=True),
    )

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return self.score_planned(cases, self._plan, self._result)

    def _result(self, plan: Plan, scores: NLIScores) -> CaseResult:
        margin = scores.prob(ENTAILMENT) - scores.prob(CONTRADICTION)
        image = _matrix(margin, plan)
        per_sentence = image.max(axis=0)
        worst = int(np.argmin(per_sentence))
        document, summary, _ = plan
        return CaseResult.ok(
            {"nli_summac_zs": float(per_sentence.mean())},
            f"least supported summary sentence ({per_sentence[worst]:.2f}): "
            f"{quote(summary[worst])!r}",
            {"sentence_scores": rounded(per_sentence),
             "best_document_sentence": [int(i) for i in image.argmax(axis=0)],
             "n_document_sentences": len(document), "model": self.model_name()},
        )


@register
class NLISummaCConv(_SummaC):
    """SummaC-Conv over the NLI backend, with trained weights given by path."""

    name = "nli_summac_conv"
    description = (
        "SummaC-Conv: histograms of P(entailment) per summary sentence scored by the trained "
        "SummaC convolution weights (a path to the checkpoint is required)."
    )
    metrics = (
        MetricSpec("nli_summac_conv", "SummaC-Conv probability that the summary is consistent",
                   threshold=0.5, primary=True),
    )

    def __init__(
        self, nli: str | NLIModel = DEFAULT_NLI, weights: str | None = None,
        bins: str = "percentile", source: str = DEFAULT_SUMMARY_SOURCE,
    ) -> None:
        super().__init__(nli, source)
        check(weights is None or isinstance(weights, str), "weights", "NLISummaCConv",
              "the path of SummaC-Conv weights (.bin or .npz) or None", weights)
        check(isinstance(bins, str), "bins", "NLISummaCConv", "'percentile' or 'evenN'", bins)
        self.weights = weights
        self.bins = bins

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        from assay.backends.nli.summac_conv import bin_edges, conv_score, load_weights

        if self.weights is None:
            raise BackendError(
                "SummaC-Conv needs its trained weights: pass weights='path/to/"
                "summac_conv_vitc_sent_perc_e.bin' (from github.com/tingofurro/summac releases), "
                "or use nli_summac_zs"
            )
        weights = load_weights(self.weights)
        edges = bin_edges(self.bins)

        def result(plan: Plan, scores: NLIScores) -> CaseResult:
            image = _matrix(scores.prob(ENTAILMENT), plan)
            value = conv_score(image, weights, edges)
            return CaseResult.ok(
                {"nli_summac_conv": value},
                f"SummaC-Conv {value:.2f} over {image.shape[1]} summary sentences",
                {"max_entailment_per_sentence": rounded(image.max(axis=0)),
                 "summary_sentences_used": min(image.shape[1], 10), "model": self.model_name()},
            )

        return self.score_planned(cases, self._plan, result)
