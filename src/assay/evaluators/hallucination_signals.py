"""The judge-free support signals of each answer sentence, combined by ``hallucination_score``.

One function computes them for the evaluator and for its trainer (``scripts/heads/
hallucination.py``), so the shipped weights always meet the signals they were fitted on. Every
signal is oriented so that *higher means better supported*; the combining head's weights are
constrained to be non-negative, which makes the score monotone in each signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assay.backends.embed import CachedEmbedder
from assay.backends.nli import CONTRADICTION, ENTAILMENT, NLIModel
from assay.evaluators.embedding_base import chunk_sentences, cosine_matrix
from assay.evaluators.lexical_groundedness import token_precision
from assay.text.alignment import ContextIndex
from assay.text.facts import Fact, contradicted_by_antonym, fact_supported, negation_supported
from assay.text.reading import TextReading, reading
from assay.text.rules_probe import fingerprint, probe_pairs
from assay.text.tokens import words

#: Name of this signal set (recorded in the head; the evaluator refuses other sets).
FEATURE_SET = "hallucination-v5"
#: The fact kinds a detail edit changes (counted by ``figures_supported`` and
#: ``key_facts_supported``, with the content words whose antonym the context uses instead).
KEY_KINDS = ("number", "date", "name", "negation")
#: The key facts that are figures: their own signal, and the evidence of the head's figure cap.
FIGURE_KINDS = ("number", "date")
#: Unsupported key facts counted per sentence and signal, at most.
KEY_CAP = 5
#: The signals, in column order, each "higher = better supported".
SIGNALS = (
    "nli_entailment",  # max over passages of the NLI head's P(entailment)
    "nli_not_contradiction",  # 1 - P(contradiction) against the passage it aligns with
    "emb_support",  # max cosine to any context sentence (HCAT embedding groundedness)
    "token_precision",  # share of the sentence's tokens found in the context
    "facts_support",  # share of its words, numbers, names found in the context
    "key_facts_supported",  # -(unsupported names, negations, antonyms), cap 5
    "figures_supported",  # -(unsupported numbers and dates), cap 5
    "aligned_support",  # 1 - IDF share of its details found in the context but not in the
    # window it aligns with (assay.text.alignment: a detail moved from elsewhere)
    "window_entailment",  # the NLI head's P(entailment) against that aligned window alone
    "window_not_contradiction",  # 1 - its P(contradiction) against the aligned window
)
#: The signals the texts alone decide (no model): :func:`text_signals`.
TEXT_SIGNALS = SIGNALS[3:8]
#: Claims of at most this many words are read with the question they answer (design note 0062).
SHORT_CLAIM_WORDS = 5


def read_with_question(claim: str, question: str | None) -> str:
    """What the model signals read for ``claim``: the question and the claim as one text when
    the claim is short (at most :data:`SHORT_CLAIM_WORDS` words) and there is a question, else
    the claim. A reply of a few words ("10%.") asserts only what the question asks; the text
    signals still read the claim alone (the question's own figures are the user's premises).

    Example:
        >>> read_with_question("10%.", "What is the minimum deposit?")
        'What is the minimum deposit? 10%.'
        >>> read_with_question("The minimum deposit is 10% of the price.", "Deposit?")
        'The minimum deposit is 10% of the price.'
        >>> read_with_question("10%.", None)
        '10%.'
    """
    if question is None or not question.strip() or len(words(claim)) > SHORT_CLAIM_WORDS:
        return claim
    return f"{question.strip()} {claim}"


def window_text(claim: str, question: str | None) -> str:
    """The text that chooses the context window ``claim`` must be found in: the question, when
    the claim is read with it (:func:`read_with_question`; the question says what is asked,
    and a short claim's own figure would otherwise choose the window that holds it, hiding a
    figure taken from elsewhere in the context), else the claim.

    Example:
        >>> window_text("10%.", "How long can a term run?"), window_text("10%.", None)
        ('How long can a term run?', '10%.')
    """
    return claim if read_with_question(claim, question) == claim else str(question).strip()


#: A context as the key-fact check reads it: its normalised keys, and each sentence's content
#: stems and whether it is negated (for the local negation check).
ContextFacts = tuple[frozenset[str], list[tuple[frozenset[str], bool]]]


def context_facts(context_sentences: Sequence[str]) -> ContextFacts:
    """What :func:`unsupported_key_facts` needs of a context, computed once per context.

    Example:
        >>> keys, sentences = context_facts(["Anna paid 50 euros.", "It was not late."])
        >>> "num:50" in keys, [negated for _, negated in sentences]
        (True, [False, True])
    """
    return facts_of_readings([reading(s) for s in context_sentences])


def facts_of_readings(readings: Sequence[TextReading]) -> ContextFacts:
    """:func:`context_facts` of sentences already read (the context's keys are the union of
    its sentences')."""
    return (frozenset().union(*(r.keys for r in readings)),
            [(r.stems, r.negated) for r in readings])


def unsupported_key_facts(claim: str, context: ContextFacts) -> list[Fact]:
    """The claim's numbers, dates and names absent from the context, its negations that the
    context sentence closest to it does not share (the ``facts_key_unsupported_count`` rule of
    ``unsupported_facts``, for one sentence), and its words absent from the context whose
    antonym the context uses (a swapped predicate).

    Example:
        >>> ctx = context_facts(["Anna paid 50 euros.", "The card is not free.",
        ...                      "Fees increased."])
        >>> claim = "Then Bob paid 60 euros; Anna did not. Fees decreased."
        >>> [f.text for f in unsupported_key_facts(claim, ctx)]
        ['Bob', '60', 'not', 'decreased']
    """
    keys, sentences = context
    out = []
    for fact in reading(claim).facts:
        if fact.kind == "negation":
            unsupported = not negation_supported(claim, sentences)
        elif fact.kind in KEY_KINDS:
            unsupported = not fact_supported(fact, keys)
        else:
            unsupported = contradicted_by_antonym(fact, keys)
        if unsupported:
            out.append(fact)
    return out


@dataclass(frozen=True)
class ContextAnalysis:
    """A context as the signals read it, computed once per distinct context: its sentences,
    the passage each belongs to, their facts (:func:`context_facts`) and alignment index."""

    sentences: list[str]
    owners: list[int]
    facts: ContextFacts
    alignment: ContextIndex


class Analyses:
    """The context analyses of one scoring call, each made on first use and kept by passages
    (cases often share a context; the reading of each context sentence is kept process-wide by
    :func:`assay.text.reading.reading`, since contexts share passages in other combinations).

    Example:
        >>> analyses = Analyses()
        >>> first = analyses.of(["Anna paid 50 euros.", "It was late."])
        >>> analyses.of(["Anna paid 50 euros.", "It was late."]) is first
        True
        >>> analyses.of(["It was late.", "Bob paid."]).sentences
        ['It was late.', 'Bob paid.']
    """

    def __init__(self) -> None:
        self.contexts: dict[tuple[str, ...], ContextAnalysis] = {}

    def of(self, chunks: Sequence[str]) -> ContextAnalysis:
        """The analysis of the passages ``chunks``."""
        key = tuple(chunks)
        if key not in self.contexts:
            sentences, owners = chunk_sentences(chunks)
            readings = [reading(s) for s in sentences]
            self.contexts[key] = ContextAnalysis(
                sentences, owners, facts_of_readings(readings),
                ContextIndex.of(sentences, owners, [r.details for r in readings]))
        return self.contexts[key]


def sentence_signals(
    nli: NLIModel,
    embedder: CachedEmbedder,
    sentences: Sequence[Sequence[str]],
    contexts: Sequence[Sequence[str]],
    analyses: Analyses | None = None,
    questions: Sequence[str | None] | None = None,
) -> list[np.ndarray]:
    """Per case, a ``(len(sentences[i]), len(SIGNALS))`` matrix of support signals.

    Every NLI pair of the batch is scored in one call: each sentence against every passage,
    and against the window of context sentences it aligns with (:mod:`assay.text.alignment`).
    The window pair is there because a passage is judged as a whole: a detail edit of one of
    its sentences weighs little against all the others, and against the window it is the
    claim's only disagreement. Entailment counts from any passage; contradiction only from the
    passage holding that window: the NLI heads, like the SNLI data they learnt from, read a
    premise about something else as a contradiction (P 0.6-0.76 for "Cards are sent by post
    within 7 days." against a sentence about a fee), so a maximum over retrieved passages
    would let any unrelated passage contradict every claim.

    Args:
        nli: the NLI model (premise = a passage or an aligned window, hypothesis = a sentence).
        embedder: the sentence embedder of the embedding signal.
        sentences: the answer sentences of each case.
        contexts: the non-empty passages of each case (at least one each).
        analyses: where the context analyses are kept (the caller's, to reuse them when
            explaining; default: for this call only).
        questions: the question each case answers (None: none); a short claim's model signals
            read it with the question (:func:`read_with_question`), and the question chooses
            its window (:func:`window_text`).
    """
    analyses = Analyses() if analyses is None else analyses
    asked = list(questions) if questions is not None else [None] * len(sentences)
    read = [[read_with_question(claim, question) for claim in claims]
            for claims, question in zip(sentences, asked, strict=True)]
    premises: list[str] = []
    hypotheses: list[str] = []
    texts: dict[str, None] = {}
    aligned_passage: list[int] = []  # per claim, the passage holding its aligned window
    aligners = [[window_text(claim, question) for claim in claims]
                for claims, question in zip(sentences, asked, strict=True)]
    for read_as, align, chunks in zip(read, aligners, contexts, strict=True):
        context = analyses.of(chunks)
        context_sentences, alignment, owners = context.sentences, context.alignment, context.owners
        texts.update(dict.fromkeys(read_as))
        texts.update(dict.fromkeys(context_sentences))
        for text, by in zip(read_as, align, strict=True):
            start, stop = alignment.best_window(by)
            premises.extend([*chunks, " ".join(context_sentences[start:stop]) or chunks[0]])
            hypotheses.extend([text] * (len(chunks) + 1))
            aligned_passage.append(owners[start] if start < len(owners) else 0)
    scores = nli.predict(premises, hypotheses) if premises else None
    entailment = scores.prob(ENTAILMENT) if scores is not None else np.zeros(0)
    contradiction = scores.prob(CONTRADICTION) if scores is not None else np.zeros(0)
    ordered = list(texts)
    matrix = embedder.encode(ordered) if ordered else np.zeros((0, 0), np.float32)
    index = {t: i for i, t in enumerate(ordered)}
    out: list[np.ndarray] = []
    row = claim_number = 0
    for claims, read_as, align, chunks in zip(sentences, read, aligners, contexts, strict=True):
        joined = "\n".join(chunks)
        context = analyses.of(chunks)
        context_sentences = context.sentences
        context_rows = matrix[[index[s] for s in context_sentences]]
        claim_rows = matrix[[index[c] for c in read_as]]
        cosines = cosine_matrix(claim_rows, context_rows) if len(context_rows) else None
        values = np.zeros((len(claims), len(SIGNALS)))
        for k, claim in enumerate(claims):
            span, window = slice(row, row + len(chunks)), row + len(chunks)
            passage = row + aligned_passage[claim_number]
            row += len(chunks) + 1
            claim_number += 1
            values[k] = [
                float(entailment[span].max()),
                1.0 - float(contradiction[passage]),
                float(cosines[k].max()) if cosines is not None else 0.0,
                *text_signals(claim, context, joined, aligned_by=align[k]),
                float(entailment[window]),
                1.0 - float(contradiction[window]),
            ]
        out.append(values)
    return out


def text_signals(claim: str, context: ContextAnalysis, joined: str,
                 aligned_by: str | None = None) -> list[float]:
    """The :data:`TEXT_SIGNALS` of ``claim`` against a context's analysis (``joined``: its
    passages, one per line): the signals the texts alone decide. ``aligned_by``: the text
    that chooses the window of ``aligned_support`` (default: the claim; :func:`window_text`).

    Example:
        >>> context = Analyses().of(["Anna paid 50 euros."])
        >>> text_signals("Anna paid 60 euros.", context, "Anna paid 50 euros.")
        [0.75, 0.75, -0.0, -1.0, 1.0]
    """
    flags = [fact_supported(f, context.facts[0]) for f in reading(claim).facts]
    precision = token_precision(claim, joined)
    key = unsupported_key_facts(claim, context.facts)
    figures = sum(f.kind in FIGURE_KINDS for f in key)
    return [1.0 if precision is None else precision,
            sum(flags) / len(flags) if flags else 1.0,
            -float(min(len(key) - figures, KEY_CAP)),
            -float(min(figures, KEY_CAP)),
            1.0 - context.alignment.moved_details(claim, aligned_by)[0]]


def text_fingerprint() -> str:
    """The fingerprint of :func:`text_signals` on the text-rules probe (recorded by the
    combining head; :mod:`assay.text.rules_probe`)."""
    analyses = Analyses()
    return fingerprint(text_signals(claim, analyses.of(passages), "\n".join(passages))
                       for claim, passages in probe_pairs())


#: Where the combining head stores its figure cap (in the weights file's data, under sha256).
FIGURE_CAP = "p_supported_with_unstated_figure"


def unstated_figure(values: np.ndarray) -> np.ndarray:
    """Per sentence (row of signals), whether it states a number or date the context lacks."""
    return values[:, SIGNALS.index("figures_supported")] < 0


def capped_at_figures(p_supported: np.ndarray, values: np.ndarray, cap: float) -> np.ndarray:
    """P(supported) of each sentence, at most ``cap`` when it states a figure the context does
    not (:func:`unstated_figure`).

    Why a cap rather than one more weight: a linear head adds an unstated figure's evidence to
    the others, and a sentence copied from the context with one number changed keeps every
    other signal at full support, so its figure could only move it part of the way (a changed
    fee scored 0.49, under the 0.5 threshold). Stating a figure the context does not is itself
    the finding; the cap is the share of supported claims among the training claims with an
    unstated figure (estimated by the trainer, at the head's even odds), so a copied sentence
    cannot outweigh it. The cap only lowers P(supported), so the score stays monotone.

    Example:
        >>> values = np.zeros((2, len(SIGNALS)))
        >>> values[1, SIGNALS.index("figures_supported")] = -1.0
        >>> capped_at_figures(np.array([0.7, 0.7]), values, 0.3).tolist()
        [0.7, 0.3]
    """
    return np.where(unstated_figure(values), np.minimum(p_supported, cap), p_supported)
