"""Groundedness (NLI), as in the HCAT paper §3.2.2: a calibrated entailment distance per sentence.

For each answer sentence (hypothesis) and each retrieved passage (premise) the NLI model gives
an entailment logit ``z_e``. HCAT turns it into the signed distance of the input to the
entailment decision boundary, ``d = z_e / ‖w_e‖``, where ``w_e`` is the entailment row of the
final linear layer of the classifier (found by :func:`assay.backends.nli.hf.head_layer`:
``classifier.out_proj`` for RoBERTa/XLM-R/ELECTRA/MPNet, ``classification_head.out_proj`` for
BART, ``classifier`` for BERT/ALBERT/DistilBERT/DeBERTa-v2/v3/ModernBERT, ``score`` for decoder
classifiers, else the last ``nn.Linear`` with one output per label), and maps it to (0, 1) with
the logistic function. A sentence takes its best passage (max over passages); sentences under
0.5 are flagged as potential hallucinations; the class probabilities of the best passage are
kept. ``sentences="claims"`` sets aside questions, courtesy and framing lines
(:mod:`assay.evaluators.claim_sentences`); the default scores every sentence, as HCAT does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from assay.backends.nli import DEFAULT_NLI, NLIModel, NLIScores, logistic
from assay.data.case import TestCase
from assay.errors import BackendError
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.claim_sentences import check_sentences
from assay.evaluators.explain import quote, rounded
from assay.evaluators.nli_base import (
    NLIEvaluator,
    SentencePlan,
    plan_sentences,
    probs_dict,
    truncation_problems,
)
from assay.evaluators.registry import register

#: Sentences scoring under this are flagged as potential hallucinations.
FLAG_BELOW = 0.5


@register
class NLIGroundedness(NLIEvaluator):
    """HCAT groundedness: logistic of the entailment distance, per answer sentence; min and mean."""

    name = "nli_groundedness"
    description = (
        "Per answer sentence, logistic of the entailment logit over the classifier head's "
        "entailment-row norm (HCAT §3.2.2), best passage; mean and min, sentences < 0.5 flagged."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec("nli_groundedness_mean", "mean over answer sentences of the HCAT score",
                   threshold=0.5, primary=True),
        MetricSpec("nli_groundedness_min", "HCAT score of the least grounded answer sentence",
                   threshold=0.5),
    )

    def __init__(self, nli: str | NLIModel = DEFAULT_NLI, sentences: str = "all") -> None:
        super().__init__(nli)
        self.sentences = check_sentences(sentences, "NLIGroundedness")

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return self.score_planned(cases, partial(plan_sentences, mode=self.sentences),
                                  self._result)

    def _result(self, plan: SentencePlan, scores: NLIScores) -> CaseResult:
        if scores.distance is None:
            raise BackendError(
                "the NLI model gives no entailment distance (no 'entailment' label or no linear "
                "head); use a 3-way NLI cross-encoder"
            )
        sentences, rows = plan
        per_sentence = []
        values = []
        for sentence, sentence_rows in zip(sentences, rows, strict=True):
            distances = scores.distance[sentence_rows]
            pick = int(np.argmax(distances))
            row = sentence_rows[pick]
            value = float(logistic(distances[pick]))
            values.append(value)
            per_sentence.append({
                "sentence": quote(sentence),
                "score": round(value, 4),
                "distance": round(float(distances[pick]), 4),
                "best_chunk": pick,
                "probs": probs_dict(scores, row),
                "flagged": value < FLAG_BELOW,
                "truncated": bool(scores.truncated[row]),
            })
        array = np.array(values)
        worst = int(np.argmin(array))
        flagged = [i for i, s in enumerate(per_sentence) if s["flagged"]]
        explanation = (
            f"{len(flagged)} of {len(sentences)} answer sentences flagged as potential "
            f"hallucinations; least grounded ({array[worst]:.2f}): {quote(sentences[worst])!r}"
        )
        cut = int(sum(scores.truncated[r].sum() for r in rows))
        details = {
            "sentences": per_sentence,
            "flagged": flagged,
            "scores": rounded(array),
            "model": self.model_name(),
            "truncated_pairs": cut,
            "problems": truncation_problems(scores, rows),
        }
        return CaseResult.ok(
            {"nli_groundedness_mean": float(array.mean()),
             "nli_groundedness_min": float(array[worst])},
            explanation, details,
        )
