"""Query selection: drop generated questions that would make poor test cases, saying why.

Checks, in order (the first failure is the reason recorded):

* ``answer_in_question`` — a free-form question that states its own answer;
* ``ungrounded`` — the expected answer's checkable facts (content words, numbers, dates, names,
  negations) are not supported by the source chunk(s), measured by the unsupported-facts logic of
  :mod:`assay.evaluators.unsupported_facts`: the answer states no checkable fact at all, or the
  share of supported facts is below ``min_grounding`` (plain, and again over content words, each
  weighted by how specific it is to the corpus, so that an answer made of the corpus's everyday
  words — "the fee depends on the account" — does not pass on "fee" and "account"), or a number,
  date, name or negation is unsupported (``strict_key_facts``);
* ``off_source`` — the question's cosine similarity to its source chunk(s) (the best one) is
  below ``min_source_similarity``;
* ``answerable_from_corpus`` — an *unanswerable* question whose similarity to some chunk of the
  corpus reaches ``unanswerable_max_similarity`` (negatives are exempt from the grounding and
  source checks, but must not be answerable from the corpus);
* ``near_duplicate`` — cosine similarity to an earlier kept question of at least
  ``duplicate_similarity`` (exact duplicates included).

Every measurement is stored on the candidate (``scores``) whether it is kept or not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assay.backends.embed.base import Embedder
from assay.corpus.chunking import Chunk
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.unsupported_facts import UnsupportedFacts
from assay.generate.questions import Candidate
from assay.params import check
from assay.text import normalize_squad
from assay.text.facts import context_keys, extract_facts, fact_supported
from assay.text.idf import sklearn_smooth_idf

REASONS = (
    "judge_error", "parse_failure", "not_generated", "malformed", "placeholder",
    "answer_in_question",
    "ungrounded", "off_source", "answerable_from_corpus", "near_duplicate", "over_quota",
)


@dataclass(frozen=True)
class SelectionConfig:
    """Thresholds of the selection step (defaults suit all-MiniLM-L6-v2 cosine similarities)."""

    min_source_similarity: float = 0.35
    min_grounding: float = 0.6
    duplicate_similarity: float = 0.92
    unanswerable_max_similarity: float = 0.7
    answer_in_question: bool = True
    strict_key_facts: bool = True

    def __post_init__(self) -> None:
        for name in ("min_source_similarity", "min_grounding", "duplicate_similarity",
                     "unanswerable_max_similarity"):
            value = getattr(self, name)
            check(-1.0 <= value <= 1.0, name, "SelectionConfig", "between -1 and 1", value)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record."""
        return asdict(self)


def grounding_text(candidate: Candidate) -> str:
    """The part of the expected answer that must be grounded: the option for multiple choice,
    the statement after Yes / No for yes/no questions, else the whole answer.

    Example:
        >>> from assay.generate.sampling import Slot
        >>> c = Candidate(Slot(0, 0, "yes_no", (0,)), "Is it free?", "No, it costs 5 euros.",
        ...               correct="no")
        >>> grounding_text(c)
        'it costs 5 euros.'
    """
    answer = candidate.answer or ""
    if candidate.options is not None:
        return answer
    if candidate.correct in ("yes", "no"):
        head, _, rest = answer.partition(",")
        return rest.strip() if head.strip().lower() in ("yes", "no") else answer
    return answer


def grounding(answers: Sequence[str], sources: Sequence[Sequence[str]]
              ) -> list[tuple[float, int] | None]:
    """Per answer: the share of its checkable facts the sources support, and how many of its
    numbers, dates, names and negations they do not (None: no checkable fact).

    Example:
        >>> grounding(["The fee is 5 euros.", "The fee is 9 euros."],
        ...           [["The monthly fee is 5 euros."], ["The monthly fee is 5 euros."]])
        [(1.0, 0), (0.6666666666666666, 1)]
    """
    evaluator = UnsupportedFacts()
    cases = [TestCase(id=str(i), actual_answer=a, retrieved_context=list(s))
             for i, (a, s) in enumerate(zip(answers, sources, strict=True))]
    out: list[tuple[float, int] | None] = []
    for result in evaluator.score(cases):
        share = result.outcomes["facts_support"]
        key = result.outcomes["facts_key_unsupported_count"]
        if share.status is Status.OK and share.value is not None:
            out.append((share.value, int(key.value or 0)))
        else:
            out.append(None)
    return out


class Specificity:
    """Weights of an answer's content words by how specific they are to the corpus (smoothed inverse
    document frequency over its chunks, as scikit-learn's ``TfidfVectorizer``), and the weighted
    share of them a source supports.

    Why not the NLI head as well: on the demo's fee passage it gave 0.88 entailment to "The fee
    depends on the account." and 0.29 to a faithful paraphrase (held-out accuracy 0.53 in its
    model card), so it would drop good questions and keep general ones; the weighting uses the
    same exact fact matching as the plain share and explains itself by naming the words.

    Example:
        >>> spec = Specificity(["The fee is 5 euros.", "The account fee is waived.",
        ...                     "Cards are free."])
        >>> share, missing = spec.support("The fee depends on the account.",
        ...                               ["The fee is 5 euros."])
        >>> round(share, 2), missing
        (0.24, ['depends', 'account'])
    """

    def __init__(self, corpus: Sequence[str]) -> None:
        self.n_chunks = len(corpus)
        self.df: Counter[str] = Counter()
        for text in corpus:
            self.df.update(context_keys([text]))

    def weight(self, key: str) -> float:
        """Smoothed IDF of a fact key: 1 for a key in every chunk, more the rarer it is."""
        return sklearn_smooth_idf(self.n_chunks, self.df[key])

    def support(self, answer: str, source: Sequence[str]) -> tuple[float | None, list[str]]:
        """The IDF-weighted share of the answer's content words the source supports (None: no
        content word), and the unsupported words. Numbers, dates, names and negations are left to
        ``strict_key_facts``, which a user may relax."""
        facts = [f for f in extract_facts(answer) if f.kind == "word"]
        if not facts:
            return None, []
        keys = context_keys(source)
        total = supported = 0.0
        missing: list[str] = []
        for fact in facts:
            weight = self.weight(fact.key)
            total += weight
            if fact_supported(fact, keys):
                supported += weight
            else:
                missing.append(fact.text)
        return supported / total, missing


def _answer_in_question(question: str, answer: str) -> bool:
    answer_norm = normalize_squad(answer)
    return len(answer_norm.split()) >= 2 and answer_norm in normalize_squad(question)


def select(
    candidates: Sequence[Candidate],
    chunks: Sequence[Chunk],
    chunk_embeddings: np.ndarray,
    embedder: Embedder,
    answerable: dict[str, bool],
    config: SelectionConfig | None = None,
) -> None:
    """Measure every live candidate and drop the poor ones (in place, with reasons).

    Args:
        candidates: Generated candidates (already-dropped ones are left alone).
        chunks: All chunks of the corpus.
        chunk_embeddings: Their L2-normalised embeddings (row per chunk).
        embedder: Embeds the questions (the same model as the chunks).
        answerable: Per query type name, whether the corpus answers it.
        config: Thresholds.
    """
    config = config or SelectionConfig()
    live = [c for c in candidates if c.dropped is None and c.question]
    if not live:
        return
    questions = np.asarray(embedder.encode([c.question or "" for c in live]), dtype=np.float64)
    corpus = np.asarray(chunk_embeddings, dtype=np.float64)
    to_ground = [c for c in live if answerable.get(c.slot.query_type, True)]
    supported = grounding([grounding_text(c) for c in to_ground],
                          [[chunks[i].text for i in c.slot.chunks] for c in to_ground])
    ground = {id(c): s for c, s in zip(to_ground, supported, strict=True)}
    specificity = Specificity([chunk.text for chunk in chunks]) if to_ground else None
    for row, candidate in zip(questions, live, strict=True):
        similarities = corpus @ row
        source = max(float(similarities[i]) for i in candidate.slot.chunks)
        candidate.scores["source_similarity"] = round(source, 6)
        candidate.scores["max_corpus_similarity"] = round(float(similarities.max()), 6)
        if not answerable.get(candidate.slot.query_type, True):
            if similarities.max() >= config.unanswerable_max_similarity:
                best = int(np.argmax(similarities))
                candidate.drop("answerable_from_corpus",
                               f"similarity {similarities.max():.3f} to chunk {chunks[best].id}")
            continue
        measured = ground[id(candidate)]
        share, key_missing = measured if measured is not None else (None, 0)
        specific, unsupported = (None, []) if specificity is None else specificity.support(
            grounding_text(candidate), [chunks[i].text for i in candidate.slot.chunks])
        if share is not None:
            candidate.scores["grounding"] = round(share, 6)
            candidate.scores["unsupported_key_facts"] = key_missing
        if specific is not None:
            candidate.scores["specific_grounding"] = round(specific, 6)
        # "Yes." states nothing to ground: a yes/no question's claim is in the question itself.
        bare_yes_no = candidate.correct in ("yes", "no")
        if (config.answer_in_question and candidate.options is None
                and candidate.correct is None
                and _answer_in_question(candidate.question or "", candidate.answer or "")):
            candidate.drop("answer_in_question", "the question contains its expected answer")
        elif share is None and not bare_yes_no:
            candidate.drop("ungrounded", "the expected answer states no content word, number, "
                                         "date or name the source could support")
        elif share is not None and share < config.min_grounding:
            candidate.drop("ungrounded", f"{share:.2f} of the answer's facts are in the source "
                                         f"(minimum {config.min_grounding})")
        elif specific is not None and specific < config.min_grounding:
            candidate.drop("ungrounded", f"{specific:.2f} of the answer's content, each word "
                                         "weighted by how specific it is to the corpus, is in the "
                                         f"source (minimum {config.min_grounding}); not in the "
                                         f"source: {', '.join(unsupported)}")
        elif config.strict_key_facts and key_missing:
            candidate.drop("ungrounded", f"{key_missing} number(s), date(s), name(s) or "
                                         "negation(s) of the answer are not in the source")
        elif source < config.min_source_similarity:
            candidate.drop("off_source", f"similarity {source:.3f} to the source chunk "
                                         f"(minimum {config.min_source_similarity})")
    kept_rows: list[int] = []
    for index, candidate in enumerate(live):
        if candidate.dropped is not None:
            continue
        if kept_rows:
            similarity = questions[kept_rows] @ questions[index]
            best = int(np.argmax(similarity))
            if similarity[best] >= config.duplicate_similarity:
                candidate.scores["duplicate_similarity"] = round(float(similarity[best]), 6)
                candidate.drop("near_duplicate", f"similarity {similarity[best]:.3f} to "
                                                 f"{live[kept_rows[best]].question!r}")
                continue
        kept_rows.append(index)
