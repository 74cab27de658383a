"""Sentence-pair features for the NLI head, over frozen all-MiniLM-L6-v2 vectors.

Premise and hypothesis are embedded per *sentence* with the shared embedder (the same cached
vectors the embedding evaluators use, so a run that prefetched them encodes nothing more). The
premise sentence closest to the hypothesis stands for the premise (``u``), the hypothesis is
``v``; the row is ``[u, v, |u − v|, u ⊙ v]`` (InferSent's pair features) followed by a few cheap
lexical signals that sentence vectors cannot see: the share of the hypothesis' numbers, names
and content words found in the premise, its unsupported names/numbers/negations, a negation
mismatch against the closest premise sentence, its words whose WordNet antonym the premise
uses (all from :mod:`assay.text.facts`, so the head and the ``unsupported_facts`` evaluator
agree on what "supported" means), and sizes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from assay.backends.embed.base import Embedder
from assay.text.facts import contradicted_by_antonym, fact_supported
from assay.text.reading import reading
from assay.text.rules_probe import fingerprint, probe_pairs
from assay.text.sentences import split_sentences
from assay.text.tokens import words

#: Name of this feature set (recorded in ``head.json``; a head refuses other feature sets).
FEATURE_SET = "nli-pair-v2"
#: Embedding dimension of all-MiniLM-L6-v2.
DIM = 384
#: Names of the scalar features appended after the four vector blocks.
SCALARS = (
    "cos_best",
    "cos_mean",
    "facts_support",
    "key_unsupported",
    "stem_coverage",
    "negation_mismatch",
    "antonym_conflicts",
    "log_hypothesis_words",
    "log_premise_words",
)
N_FEATURES = 4 * DIM + len(SCALARS)
#: The leading scalars computed from the sentence vectors (``cos_best``, ``cos_mean``).
N_VECTOR_SCALARS = 2
#: Premise sentences considered per pair, at most (the rest are ignored, never truncated silently:
#: :func:`pair_features` reports how many pairs were cut).
MAX_PREMISE_SENTENCES = 64


def premise_sentences(premise: str) -> list[str]:
    """The sentences a premise is embedded as (the premise itself when it has none).

    Example:
        >>> premise_sentences("The fee is 12 euros. It is waived.")
        ['The fee is 12 euros.', 'It is waived.']
    """
    return split_sentences(premise)[:MAX_PREMISE_SENTENCES] or [premise]


def texts_of_pairs(premises: Sequence[str], hypotheses: Sequence[str]) -> list[str]:
    """Every distinct text that :func:`pair_features` embeds for these pairs, in first-use order.

    Example:
        >>> texts_of_pairs(["The fee is low. Cards are free."], ["Cards are free."])
        ['The fee is low.', 'Cards are free.']
    """
    texts: dict[str, None] = {}
    for premise, hypothesis in zip(premises, hypotheses, strict=True):
        texts.update(dict.fromkeys(premise_sentences(premise)))
        texts[hypothesis] = None
    return list(texts)


def lexical_features(premise: str, hypothesis: str, best_sentence: str) -> list[float]:
    """The lexical scalars of one pair (support shares, unsupported key facts, negation mismatch,
    words whose antonym the premise uses instead).

    Example:
        >>> lexical_features("Anna paid 50 euros.", "Anna paid 60 euros.", "Anna paid 50 euros.")
        [0.75, 1.0, 1.0, 0.0, 0.0]
        >>> lexical_features("A man is sitting.", "A man is standing.", "A man is sitting.")
        [0.5, 0.0, 0.5, 0.0, 1.0]
    """
    context, claim = reading(premise), reading(hypothesis)
    keys, premise_stems = context.keys, context.stems
    facts, stems, negated = claim.facts, claim.stems, claim.negated
    flags = [fact_supported(f, keys) for f in facts]
    support = sum(flags) / len(flags) if flags else 1.0
    key_unsupported = sum(1 for f, ok in zip(facts, flags, strict=True)
                          if not ok and f.kind in ("number", "date", "name"))
    coverage = len(stems & premise_stems) / len(stems) if stems else 1.0
    mismatch = float(negated != reading(best_sentence).negated)
    antonymous = sum(1 for f in facts if contradicted_by_antonym(f, keys))
    return [support, float(min(key_unsupported, 5)), coverage, mismatch,
            float(min(antonymous, 5))]


def sentence_pair(
    matrix: np.ndarray, index: Mapping[str, int], premise: str, hypothesis: str
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """The closest premise sentence's vector ``u``, the hypothesis' vector ``v`` and the pair's
    :data:`SCALARS`, from the sentence rows ``matrix`` of the texts in ``index``
    (:func:`texts_of_pairs` order)."""
    sentences = premise_sentences(premise)
    u_all = matrix[[index[s] for s in sentences]]
    v = matrix[index[hypothesis]]
    cos = u_all @ v
    best = int(np.argmax(cos))
    scalars = [float(cos[best]), float(cos.mean()),
               *text_scalars(premise, hypothesis, sentences[best])]
    return u_all[best], v, scalars


def text_scalars(premise: str, hypothesis: str, best_sentence: str) -> list[float]:
    """The :data:`SCALARS` after the similarities (the first :data:`N_VECTOR_SCALARS`): they
    depend on the texts only (``best_sentence``, the premise sentence closest to the hypothesis,
    for the negation mismatch).

    Example:
        >>> values = text_scalars("Anna paid 50 euros.", "Anna paid 60 euros.",
        ...                       "Anna paid 50 euros.")
        >>> len(values) + N_VECTOR_SCALARS == len(SCALARS), values[:5]
        (True, [0.75, 1.0, 1.0, 0.0, 0.0])
    """
    return [*lexical_features(premise, hypothesis, best_sentence),
            float(np.log1p(len(words(hypothesis)))), float(np.log1p(len(words(premise))))]


def lexical_fingerprint() -> str:
    """The fingerprint of :func:`text_scalars` on the text-rules probe: each claim against each
    of its passages, with each passage sentence as the closest one (recorded by the NLI heads
    that read these scalars; :mod:`assay.text.rules_probe`)."""
    return fingerprint(text_scalars(passage, claim, sentence)
                       for claim, passages in probe_pairs() for passage in passages
                       for sentence in premise_sentences(passage))


def pair_features(
    embedder: Embedder, premises: Sequence[str], hypotheses: Sequence[str]
) -> np.ndarray:
    """``(n, N_FEATURES)`` float32 feature rows of the pairs, embedding every text once.

    Args:
        embedder: the sentence embedder (unit rows of dimension :data:`DIM`).
        premises: the evidence of each pair.
        hypotheses: the claim of each pair.
    """
    texts = texts_of_pairs(premises, hypotheses)
    if not texts:
        return np.zeros((0, N_FEATURES), dtype=np.float32)
    matrix = np.asarray(embedder.encode(texts), dtype=np.float32)
    index = {text: row for row, text in enumerate(texts)}
    out = np.empty((len(premises), N_FEATURES), dtype=np.float32)
    for i, (premise, hypothesis) in enumerate(zip(premises, hypotheses, strict=True)):
        u, v, scalars = sentence_pair(matrix, index, premise, hypothesis)
        out[i, :DIM] = u
        out[i, DIM : 2 * DIM] = v
        out[i, 2 * DIM : 3 * DIM] = np.abs(u - v)
        out[i, 3 * DIM : 4 * DIM] = u * v
        out[i, 4 * DIM :] = scalars
    return out
