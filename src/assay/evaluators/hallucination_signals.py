"""The judge-free support signals of each answer sentence, combined by ``hallucination_score``.

One function computes them for the evaluator and for its trainer (``scripts/heads/
hallucination.py``), so the shipped weights always meet the signals they were fitted on. Every
signal is oriented so that *higher means better supported*; the combining head's weights are
constrained to be non-negative, which makes the score monotone in each signal.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.embed import CachedEmbedder
from assay.backends.nli import CONTRADICTION, ENTAILMENT, NLIModel
from assay.evaluators.embedding_base import chunk_sentences, cosine_matrix
from assay.evaluators.lexical_groundedness import token_precision
from assay.text.facts import context_keys, extract_facts, fact_supported

#: Name of this signal set (recorded in the head; the evaluator refuses other sets).
FEATURE_SET = "hallucination-v1"
#: The signals, in column order, each "higher = better supported".
SIGNALS = (
    "nli_entailment",  # max over passages of the NLI head's P(entailment)
    "nli_not_contradiction",  # 1 - max over passages of P(contradiction)
    "emb_support",  # max cosine to any context sentence (HCAT embedding groundedness)
    "token_precision",  # share of the sentence's tokens found in the context
    "facts_support",  # share of its words, numbers, names found in the context
    "key_facts_supported",  # -(unsupported numbers, dates and names), capped at 5
)


def sentence_signals(
    nli: NLIModel,
    embedder: CachedEmbedder,
    sentences: Sequence[Sequence[str]],
    contexts: Sequence[Sequence[str]],
) -> list[np.ndarray]:
    """Per case, a ``(len(sentences[i]), len(SIGNALS))`` matrix of support signals.

    Args:
        nli: the NLI model (premise = a passage, hypothesis = a sentence).
        embedder: the sentence embedder of the embedding signal.
        sentences: the answer sentences of each case.
        contexts: the non-empty passages of each case (at least one each).
    """
    premises: list[str] = []
    hypotheses: list[str] = []
    for claims, chunks in zip(sentences, contexts, strict=True):
        for claim in claims:
            premises.extend(chunks)
            hypotheses.extend([claim] * len(chunks))
    scores = nli.predict(premises, hypotheses) if premises else None
    texts: dict[str, None] = {}
    for claims, chunks in zip(sentences, contexts, strict=True):
        texts.update(dict.fromkeys(claims))
        texts.update(dict.fromkeys(chunk_sentences(chunks)[0]))
    ordered = list(texts)
    matrix = embedder.encode(ordered) if ordered else np.zeros((0, 0), np.float32)
    index = {t: i for i, t in enumerate(ordered)}
    out: list[np.ndarray] = []
    row = 0
    for claims, chunks in zip(sentences, contexts, strict=True):
        keys = context_keys(chunks)
        joined = "\n".join(chunks)
        context_rows = matrix[[index[s] for s in chunk_sentences(chunks)[0]]]
        claim_rows = matrix[[index[c] for c in claims]]
        cosines = cosine_matrix(claim_rows, context_rows) if len(context_rows) else None
        values = np.zeros((len(claims), len(SIGNALS)))
        for k, claim in enumerate(claims):
            span = slice(row, row + len(chunks))
            row += len(chunks)
            assert scores is not None
            facts = extract_facts(claim)
            flags = [fact_supported(f, keys) for f in facts]
            key_missing = sum(1 for f, ok in zip(facts, flags, strict=True)
                              if not ok and f.kind in ("number", "date", "name"))
            precision = token_precision(claim, joined)
            values[k] = [
                float(scores.prob(ENTAILMENT)[span].max()),
                1.0 - float(scores.prob(CONTRADICTION)[span].max()),
                float(cosines[k].max()) if cosines is not None else 0.0,
                1.0 if precision is None else precision,
                sum(flags) / len(flags) if flags else 1.0,
                -float(min(key_missing, 5)),
            ]
        out.append(values)
    return out
