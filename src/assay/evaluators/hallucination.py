"""A judge-free hallucination score: one calibrated, monotone combination of support signals.

Each answer sentence gets ten signals from :mod:`assay.evaluators.hallucination_signals` (NLI
head entailment against each passage, contradiction against the passage it aligns with, both
against the context window it aligns with, embedding similarity, token precision, supported
facts, unsupported key facts: names, negations, antonyms, unsupported figures: numbers and
dates, and the details it takes from outside that window), all "higher = better supported".
The shipped
``hallucination`` head, a logistic regression with non-negative weights (so more support never
raises the score) fitted on held-out NLI pairs and synthetic detail edits in small documents
(``scripts/train_heads.py --head hallucination``; data and figures in its model card), turns
them into P(sentence supported), capped for a sentence that states a figure the context does
not (the head's figure cap, design note 0053). The case score is the probability that the
*least* supported sentence is unsupported, ``1 - min P(supported)``; the explanation names that
sentence and the signal that pulled it down most. Only the answer's claims are scored:
questions and courtesy formulas ("Is there anything else I can help you with?") assert nothing
a context could support and are set aside, named in the explanation (``sentences="all"`` scores
them too; design note 0051). A claim of a few words ("10%.") asserts only what the question asks;
``with_question=True`` reads its model signals with the case's question (design note 0062).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, CachedEmbedder, Embedder, get_embedder
from assay.backends.heads.store import Head, load_head
from assay.backends.nli import DEFAULT_NLI, NLIModel, logistic
from assay.data.case import TestCase
from assay.errors import BackendError
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.claim_sentences import (
    check_sentences,
    scored_sentences,
    skip_reason,
    with_set_aside,
)
from assay.evaluators.explain import quote, rounded
from assay.evaluators.hallucination_signals import (
    FEATURE_SET,
    FIGURE_CAP,
    FIGURE_KINDS,
    SIGNALS,
    Analyses,
    ContextAnalysis,
    capped_at_figures,
    read_with_question,
    sentence_signals,
    unstated_figure,
    unsupported_key_facts,
    window_text,
)
from assay.evaluators.nli_base import NLIEvaluator, chunks_of
from assay.evaluators.registry import register
from assay.params import check

#: How each signal reads when it is the one that pulled a sentence down.
_REASONS = {
    "nli_entailment": "the NLI head finds no passage that entails it (P(entailment) {:.2f})",
    "nli_not_contradiction": "the passage it matches best contradicts it "
                             "(P(contradiction) {:.2f})",
    "emb_support": "no context sentence is close to it (best cosine {:.2f})",
    "token_precision": "few of its words occur in the context (token precision {:.2f})",
    "facts_support": "many of its words, numbers and names are absent from the context "
                     "(supported share {:.2f})",
    "key_facts_supported": "the context does not support its names, negations or "
                           "predicates: {}",
    "figures_supported": "it states figures the context does not state: {}",
    "aligned_support": "the context passage it matches best does not hold {}, found elsewhere "
                       "in the context (a detail moved to the wrong place?)",
    "window_entailment": "the context sentences it matches best do not entail it "
                         "(P(entailment) {:.2f})",
    "window_not_contradiction": "the context sentences it matches best contradict it "
                                "(P(contradiction) {:.2f})",
}

#: The reason when no signal is below its training average: what is left is what the signals
#: cannot see (the head's probability at full support is under 1).
_NO_WEAK_SIGNAL = ("every signal supports it at least as well as the average training claim; "
                   "what remains is what these signals cannot see (a swapped role or a word "
                   "moved within the passage keeps them all intact)")

#: How the signals that name words read when another signal is the main reason.
_ALSO = {
    "key_facts_supported": "unsupported key facts: {}",
    "figures_supported": "figures the context does not state: {}",
    "aligned_support": "taken from elsewhere in the context: {}",
}


def _named_details(sentence: str, context: ContextAnalysis, values: np.ndarray,
                   aligned_by: str) -> dict[str, str]:
    """The words behind the signals that name them (unsupported key facts, details moved from
    elsewhere), quoted, for each of those signals that is below full support (``aligned_by``:
    the text that chose the sentence's window, :func:`window_text`)."""
    named: dict[str, str] = {}
    key_signals = [SIGNALS.index(s) for s in ("key_facts_supported", "figures_supported")]
    unsupported = (unsupported_key_facts(sentence, context.facts)
                   if (values[key_signals] < 0).any() else [])
    for signal, facts in (
            ("key_facts_supported", [f for f in unsupported if f.kind not in FIGURE_KINDS]),
            ("figures_supported", [f for f in unsupported if f.kind in FIGURE_KINDS])):
        if facts:
            named[signal] = ", ".join(repr(quote(f.text)) for f in facts)
    if values[SIGNALS.index("aligned_support")] < 1:
        moved = context.alignment.moved_details(sentence, aligned_by)[1]
        named["aligned_support"] = ", ".join(repr(quote(w)) for w in moved)
    return named


@register
class HallucinationScore(NLIEvaluator):
    """P(the answer's least supported sentence is unsupported by the context); judge-free.

    Args:
        nli: the NLI model of the entailment / contradiction signals (default: the shipped
            head; the combining weights were fitted on it).
        embedder: the embedder of the similarity signal.
        head: the combining head (shipped name or folder).
        sentences: ``"claims"`` (default) or ``"all"`` (design note 0051).
        with_question: read each claim of at most five words with the case's question, as one
            text, for the NLI, embedding and alignment signals (design note 0062; off by
            default: measured, not the default by its rule).

    Example:
        >>> case = TestCase(id="1", actual_answer="The fee is 90 euros.",
        ...                 retrieved_context=["The monthly fee is 5 euros."])
        >>> result = HallucinationScore().evaluate([case])[0]
        >>> result.outcomes["hallucination_score"].value > 0.5
        True
    """

    name = "hallucination_score"
    family = "groundedness"
    description = (
        "Judge-free: a monotone logistic combination (non-negative weights, fitted on held-out "
        "NLI pairs and synthetic detail edits) of NLI-head entailment against each passage, "
        "contradiction against the passage the sentence aligns with, both against the aligned "
        "context window, embedding "
        "similarity, token precision, supported facts, unsupported key facts (names, "
        "negations, antonyms), unsupported figures and details moved from outside the aligned "
        "context window, per answer sentence, capped when a sentence states a figure the "
        "context lacks; 1 - min over sentences of P(supported)."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec("hallucination_score",
                   "probability that the least supported answer sentence is unsupported",
                   higher_is_better=False, threshold=0.5, primary=True),
        MetricSpec("hallucination_supported_mean",
                   "mean over answer sentences of P(sentence supported)", threshold=0.5),
    )

    unpickled = ("_resolved", "_embedder")

    def __init__(
        self,
        nli: str | NLIModel = DEFAULT_NLI,
        embedder: str | Embedder = DEFAULT_SPEC,
        head: str = "hallucination",
        sentences: str = "claims",
        with_question: bool = False,
    ) -> None:
        super().__init__(nli)
        self.sentences = check_sentences(sentences, "HallucinationScore")
        check(isinstance(with_question, bool), "with_question", "HallucinationScore",
              "true or false", with_question)
        self.with_question = with_question
        check(isinstance(embedder, str | Embedder), "embedder", "HallucinationScore",
              "a spec string ('minilm', a model name or path) or an Embedder", embedder)
        check(isinstance(head, str) and bool(head.strip()), "head", "HallucinationScore",
              "a shipped head name or a head folder", head)
        self.embedder = embedder
        self.head = head

    def resolved_embedder(self) -> CachedEmbedder:
        """The caching embedder of the similarity signal."""
        return self.resolve_once(lambda: get_embedder(self.embedder), "_embedder")

    def embedder_for_prefetch(self) -> CachedEmbedder | None:
        return self.resolved_embedder()

    def resolved_head(self) -> Head:
        """The verified combining head."""
        head = load_head(self.head)
        if head.features != FEATURE_SET or head.n_inputs != len(SIGNALS):
            raise BackendError(f"head {self.head!r} expects features {head.features!r}; "
                               f"hallucination_score needs {FEATURE_SET!r}")
        if not isinstance(head.data.get(FIGURE_CAP), float):
            raise BackendError(f"head {self.head!r} has no {FIGURE_CAP!r} in its data; "
                               "retrain it with scripts/train_heads.py --head hallucination")
        return head

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        todo: list[int] = []
        plans: list[str | None] = []
        scored = [scored_sentences(case, self.sentences) for case in cases]
        for case, (kept, set_aside) in zip(cases, scored, strict=True):
            reason = skip_reason(kept, set_aside)
            if reason is None and not chunks_of(case.retrieved_context):
                reason = "the context is empty"
            plans.append(reason)
            if reason is None:
                todo.append(len(plans) - 1)
        head = self.resolved_head()
        claims = [scored[i][0] for i in todo]
        contexts = [chunks_of(cases[i].retrieved_context) for i in todo]
        analyses = Analyses()  # kept to name the details in the explanations
        questions = [cases[i].question if self.with_question else None for i in todo]
        signals = sentence_signals(self.resolved_nli(), self.resolved_embedder(), claims,
                                   contexts, analyses, questions) if todo else []
        by_case = dict(zip(todo, zip(claims, signals, contexts, questions, strict=True),
                           strict=True))
        out: list[CaseResult] = []
        for i, plan in enumerate(plans):
            if plan is not None:
                out.append(CaseResult.skipped(self.metric_names(), plan))
                continue
            sentences, values, chunks, question = by_case[i]
            out.append(with_set_aside(self._result(head, sentences, values,
                                                   analyses.of(chunks), question),
                                      scored[i][1]))
        return out

    def texts_to_encode(self, case: TestCase) -> list[str]:
        """The NLI head's sentences (:meth:`NLIEvaluator.texts_to_encode`) and, with
        ``with_question``, each short claim read with the case's question
        (:func:`read_with_question`)."""
        texts = super().texts_to_encode(case)
        if not self.with_question:
            return texts
        claims = scored_sentences(case, self.sentences)[0]
        return texts + [read for read in (read_with_question(c, case.question) for c in claims)
                        if read not in claims]

    def _result(
        self, head: Head, sentences: list[str], values: np.ndarray, context: ContextAnalysis,
        question: str | None,
    ) -> CaseResult:
        linear = logistic(head.logits(values)[:, 0])
        cap = float(head.data[FIGURE_CAP])
        supported = capped_at_figures(linear, values, cap)
        worst = int(np.argmin(supported))
        weight = head.layers[-1][0][:, 0].astype(np.float64)
        pull = weight * (values[worst] - head.mean) / head.scale  # each signal's contribution
        pull[weight <= 0] = np.inf  # a signal the head gives no weight cannot be the reason
        signal = SIGNALS[int(np.argmin(pull))]
        read_as = [read_with_question(s, question) for s in sentences]
        named = _named_details(sentences[worst], context, values[worst],
                               window_text(sentences[worst], question))
        capped = bool(unstated_figure(values[worst:worst + 1])[0]) and linear[worst] > cap
        if capped:
            signal = "figures_supported"
            reason = (_REASONS[signal].format(named.pop(signal))
                      + f" (P(supported) capped at {cap:.2f}, the share of training claims "
                        "with an unstated figure that were supported)")
        elif pull.min() >= 0:
            signal = "none"
            reason = _NO_WEAK_SIGNAL
        elif signal in named:
            reason = _REASONS[signal].format(named.pop(signal))
        else:
            shown = values[worst][SIGNALS.index(signal)]
            if signal in ("nli_not_contradiction", "window_not_contradiction"):
                shown = 1.0 - shown
            reason = _REASONS[signal].format(shown)
        reason += "".join(f"; {_ALSO[other].format(listed)}" for other, listed in named.items())
        score = 1.0 - float(supported[worst])
        with_question = " (read with the question it answers)" if (
            read_as[worst] != sentences[worst]) else ""
        explanation = (
            f"least supported sentence (P(supported) {supported[worst]:.2f}): "
            f"{quote(sentences[worst])!r}{with_question}; {reason}"
        )
        details = {
            "sentences": [
                {"sentence": quote(s), "p_supported": round(float(p), 4),
                 "signals": dict(zip(SIGNALS, rounded(v), strict=True)),
                 **({"read_with_question": True} if r != s else {})}
                for s, r, p, v in zip(sentences, read_as, supported, values, strict=True)
            ],
            "least_supported": worst,
            "reason_signal": signal,
            "figure_cap": cap,
            "head": head.model_id,
            "model": self.model_name(),
        }
        return CaseResult.ok(
            {"hallucination_score": score,
             "hallucination_supported_mean": float(supported.mean())},
            explanation, details,
        )
