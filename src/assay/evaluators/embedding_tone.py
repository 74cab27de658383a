"""Judge-free tone check: answer sentences compared with on-tone and off-tone exemplars.

The six-dimension validation framework lets tone compliance be checked by a classifier or by
embedding similarity to exemplars instead of an LLM judge; this is the second. Each tone
attribute has exemplar sentences that keep it and exemplars that break it. An answer sentence
keeps the attribute when its cosine similarity to the centroid of the keeping exemplars is at
least its similarity to the centroid of the breaking ones (margin ≥ 0; centroids average out the
exemplars' topics, where the nearest single exemplar is mostly a topic match); one breaking
sentence breaks the attribute for the answer (the worst sentence decides). ``emb_tone`` is the
share of attributes kept, the same scale as ``judge_tone``. Exemplars are parameters: a brand
writes its own house style.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import EmbeddingEvaluator, cosine_matrix, sentences_of, stack
from assay.evaluators.explain import quote
from assay.evaluators.registry import register
from assay.params import check

#: ``{attribute: (sentences that keep it, sentences that break it)}``.
Exemplars = Mapping[str, tuple[Sequence[str], Sequence[str]]]

#: Plain, professional statements: they keep every default attribute, so a neutral factual
#: sentence is never judged by its topic alone (each breaking exemplar below is about the same
#: banking topics, so tone, not topic, separates the two sides).
NEUTRAL = (
    "The monthly maintenance fee for this account is 4.50 euros.",
    "Your application will be reviewed within five business days.",
    "Card payments abroad cost 2.75 percent of the amount.",
    "The transfer limit can be changed in the online banking settings.",
    "The account can be closed at any time without a fee.",
    "Your card can be blocked in the app under Settings, Cards.",
    "Withdrawals from other banks' machines cost 3 euros each.",
    "The request was declined because the documents were incomplete.",
    "Thank you for your question; I am happy to help.",
    "You are welcome to ask if anything remains unclear.",
)

DEFAULT_EXEMPLARS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "formal": (
        (*NEUTRAL,
         "Please contact our customer service team for further assistance.",
         "We recommend that you review the terms and conditions before signing."),
        (
            "Hey, no worries, the fee's just like 4 bucks lol.",
            "Yeah dude, the card thing is super easy, whatever.",
            "Lol just chill, your application is gonna take a bit.",
            "Gonna be honest, that account is kinda meh.",
            "Yo, just hit the button in the app and you're good to go.",
            "Nah, closing the account ain't a big deal, mate.",
        ),
    ),
    "respectful": (
        (*NEUTRAL, "I understand your concern and will explain the options."),
        (
            "That is a stupid question, read the price list yourself.",
            "Only an idiot would not know how a current account works.",
            "Stop wasting my time with obvious questions about fees.",
            "Are you really too dumb to fill in a simple form?",
            "Figure out the transfer limit yourself, it is not my problem.",
            "Your application was declined because you clearly cannot read.",
        ),
    ),
    "non-emotional": (
        (*NEUTRAL,
         "The interest rate on savings is 2.1 percent per year.",
         "The payment will be credited on the next business day."),
        (
            "I am so incredibly excited to tell you about this amazing account!!!",
            "This fee is absolutely outrageous and I am furious about it!",
            "Oh no, I am so sorry, your declined application is a total disaster!",
            "Wow, I just love this card so much, it is the best ever!",
            "I am devastated that your payment failed, how awful!",
            "Honestly, closing your account would break my heart!",
        ),
    ),
}


def centroid(vectors: np.ndarray) -> np.ndarray:
    """The unit mean of unit vectors, as a one-row matrix.

    Example:
        >>> centroid(np.array([[1.0, 0.0], [0.0, 1.0]])).round(3).tolist()
        [[0.707, 0.707]]
    """
    mean = vectors.mean(axis=0)
    return (mean / (np.linalg.norm(mean) or 1.0))[None, :]


def _check_exemplars(exemplars: object) -> None:
    ok = isinstance(exemplars, Mapping) and bool(exemplars) and all(
        isinstance(name, str) and name.strip() and isinstance(pair, Sequence) and len(pair) == 2
        and all(not isinstance(side, str) and bool(side)
                and all(isinstance(t, str) and t.strip() for t in side) for side in pair)
        for name, pair in exemplars.items()
    )
    check(ok, "exemplars", "EmbTone",
          "a non-empty mapping of attribute -> (keeping sentences, breaking sentences), each a "
          "non-empty list of texts", exemplars)


@register
class EmbTone(EmbeddingEvaluator):
    """Share of tone attributes every answer sentence keeps, by similarity to exemplars."""

    name = "emb_tone"
    description = (
        "Judge-free tone check: each answer sentence's similarity to the centroid of exemplars "
        "that keep a tone attribute vs of those that break it (default formal, respectful, "
        "non-emotional); "
        "share of attributes kept by every sentence. LLM counterpart: judge_tone."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec("emb_tone", "share of tone attributes kept by every answer sentence",
                   threshold=0.75, primary=True),
        MetricSpec("emb_tone_min_margin",
                   "smallest margin (keeping minus breaking similarity) over attributes and "
                   "sentences; below 0 an attribute is broken", range=(-2.0, 2.0)),
    )

    def __init__(self, embedder: str | Embedder = DEFAULT_SPEC,
                 exemplars: Exemplars | None = None) -> None:
        super().__init__(embedder)
        if exemplars is not None:
            _check_exemplars(exemplars)
        self.exemplars = exemplars

    def _pairs(self) -> Exemplars:
        return DEFAULT_EXEMPLARS if self.exemplars is None else self.exemplars

    def texts_to_encode(self, case: TestCase) -> list[str]:
        # the exemplars too, so a run's prefetch encodes them with the answers (once: deduped)
        exemplars = [t for keep, breaks in self._pairs().values() for t in (*keep, *breaks)]
        return sentences_of(case.actual_answer) + exemplars

    def score_unique(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        pairs = self._pairs()
        vectors = anchors = self.encode_cases(cases)
        out: list[CaseResult] = []
        for case in cases:
            answer = sentences_of(case.actual_answer)
            if not answer:
                out.append(CaseResult.skipped(self.metric_names(), "the answer has no sentences"))
                continue
            rows = stack(vectors, answer)
            margins = {
                name: (cosine_matrix(rows, centroid(stack(anchors, list(keep))))
                       - cosine_matrix(rows, centroid(stack(anchors, list(breaks)))))[:, 0]
                for name, (keep, breaks) in pairs.items()
            }
            kept = {name: bool(m.min() >= 0.0) for name, m in margins.items()}
            broken = [name for name, ok in kept.items() if not ok]
            worst = {name: int(np.argmin(m)) for name, m in margins.items()}
            lowest = min(float(m.min()) for m in margins.values())
            out.append(CaseResult.ok(
                {"emb_tone": sum(kept.values()) / len(kept), "emb_tone_min_margin": lowest},
                (f"breaks: {', '.join(broken)} (e.g. {quote(answer[worst[broken[0]]])!r})"
                 if broken else "keeps every tone attribute"),
                {"attributes": [{"attribute": name, "kept": kept[name],
                                 "min_margin": round(float(margins[name].min()), 4),
                                 "worst_sentence": quote(answer[worst[name]])}
                                for name in pairs]},
            ))
        return out
