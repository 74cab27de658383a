"""Shared machinery of the embedding evaluators (``embedding_*.py``); registers nothing.

Every embedding evaluator takes its embedder by injection (an :class:`Embedder` instance or a
string spec, default ``"minilm"``), resolves it lazily and once, and never pickles the loaded
model. A batch is scored in three steps: identical cases are scored once (results of distinct
inputs are also remembered across batches, so a repeated case costs a dictionary lookup); all
sentences of the batch are deduplicated and encoded in one call (through the persistent cache);
the per-case sentence-by-sentence similarity matrices are then plain matrix products.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import Any, ClassVar

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, CachedEmbedder, Embedder, get_embedder
from assay.backends.embed.base import texts_over_limit
from assay.data.case import TestCase
from assay.evaluators.base import (
    CaseResult,
    Evaluator,
    MetricSpec,
    Prefetch,
    ResultBatch,
    Status,
    problem,
)
from assay.evaluators.claim_sentences import scored_sentences, skip_reason, with_set_aside
from assay.evaluators.explain import quote
from assay.evaluators.resolved import ResolvesOnce
from assay.params import check
from assay.text.sentences import split_sentences
from assay.text.tokens import words

#: Results of distinct inputs remembered per evaluator instance (least recently used dropped).
MEMO_ITEMS = 20_000
#: Texts per embedder that :func:`prefetch_embeddings` encodes up front, at most.
PREFETCH_TEXTS = 50_000
#: Texts per encoding call of the prefetch (progress is reported between calls).
PREFETCH_CHUNK = 4_096


class EmbeddingEvaluator(ResolvesOnce, Evaluator):
    """Base of the embedding evaluators: injected embedder, case and sentence deduplication."""

    family = "embedding"
    extra = "embed"
    #: Whether scoring reads token matrices (BERTScore-style metrics), not only sentence vectors.
    needs_tokens: ClassVar[bool] = False
    #: The resolved embedder and the memo of :meth:`evaluate` stay in this process.
    unpickled = ("_resolved", "_memo", "_memo_identity", "_memo_alive")

    def __init__(self, embedder: str | Embedder = DEFAULT_SPEC) -> None:
        check(
            isinstance(embedder, str | Embedder),
            "embedder",
            type(self).__name__,
            "a spec string ('minilm', a model name or path) or an Embedder",
            embedder,
        )
        self.embedder = embedder

    # -- embedder -------------------------------------------------------------------------
    def resolved_embedder(self) -> CachedEmbedder:
        """The caching embedder behind ``self.embedder`` (loaded on first use)."""
        return self.resolve_once(lambda: get_embedder(self.embedder))

    def encode(self, texts: Iterable[str]) -> SentenceVectors:
        """Unit vectors of the distinct ``texts``, encoded in one call."""
        unique = list(dict.fromkeys(t for t in texts if t))
        if not unique:
            return SentenceVectors([], np.zeros((0, 0), dtype=np.float32))
        return SentenceVectors(unique, self.resolved_embedder().encode(unique))

    def prefetch(self) -> Prefetch:
        """Every embedding evaluator of a run shares one up-front encoding pass."""
        return EMBEDDING_PREFETCH

    def texts_to_encode(self, case: TestCase) -> list[str]:
        """The texts that scoring ``case`` embeds; :func:`prefetch_embeddings` encodes those of a
        whole run in one call, and :meth:`encode_cases` those of a batch."""
        return []

    def embedder_for_prefetch(self) -> CachedEmbedder | None:
        """The embedder :func:`prefetch_embeddings` encodes this evaluator's texts with."""
        return self.resolved_embedder()

    def encode_cases(self, cases: Sequence[TestCase]) -> SentenceVectors:
        """Unit vectors of every text that scoring ``cases`` needs, encoded in one call."""
        return self.encode(t for case in cases for t in self.texts_to_encode(case))

    def evaluate(self, cases: Sequence[TestCase]) -> ResultBatch:
        """As :meth:`Evaluator.evaluate`, but each distinct input is evaluated once per instance:
        repeated cases (in this batch or an earlier one) reuse the remembered result. Results
        holding an ``error`` outcome are not remembered, so a transient failure is retried.

        Two lookups: by the identity of the input objects (cases copied from one another share
        them; the memo keeps those objects alive, so their ids are not reused and an identity
        match is a content match), then by content (:meth:`case_key`). The identity lookup is
        the hot path of large suites: it costs well under a microsecond per case."""
        memo: OrderedDict[Hashable, CaseResult] = self.resolve_once(OrderedDict, "_memo")
        by_identity: dict[Hashable, CaseResult] = self.resolve_once(dict, "_memo_identity")
        alive: dict[Hashable, Any] = self.resolve_once(dict, "_memo_alive")
        identities = identity_keys(cases, self.requires)
        out: list[CaseResult | None] = list(map(by_identity.get, identities))
        pending = [i for i, hit in enumerate(out) if hit is None]
        if pending:
            keys = {i: self.case_key(cases[i]) for i in pending}
            todo: dict[Hashable, TestCase] = {}
            for i in pending:
                if keys[i] not in memo and keys[i] not in todo:
                    todo[keys[i]] = cases[i]
            fresh: dict[Hashable, CaseResult] = {}
            if todo:
                with single_threaded_blas():
                    scored = super().evaluate(list(todo.values()))
                fresh = dict(zip(todo, scored, strict=True))
            if len(by_identity) + len(pending) > MEMO_ITEMS:
                by_identity.clear()
                alive.clear()
            for i in pending:
                key = keys[i]
                result = fresh[key] if key in fresh else memo[key]
                out[i] = result
                if all(o.status is not Status.ERROR for o in result.outcomes.values()):
                    memo[key] = result
                    memo.move_to_end(key)
                    by_identity[identities[i]] = result
                    alive[identities[i]] = [cases[i].__dict__[name] for name in self.requires]
            while len(memo) > MEMO_ITEMS:
                memo.popitem(last=False)
        # every slot is filled above
        return ResultBatch.of(self.metric_names(), out)  # type: ignore[arg-type]

    # -- case deduplication ---------------------------------------------------------------
    def case_key(self, case: TestCase) -> Hashable:
        """What the scores of a case depend on; identical keys are scored once per batch."""
        values = case.__dict__  # plain attribute reads: this runs once per case and evaluator
        key = []
        for name in self.requires:
            value = values[name]
            key.append(tuple(value) if type(value) is list else value)
        return tuple(key)

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        """Score each distinct input once; a case with an empty (all-zero) embedding is an
        ``error`` with an ``empty_embedding`` problem, never a silent similarity of 0."""
        empty = self._empty_embeddings(cases)
        if not empty:
            return self._flag_cut_inputs(cases, self._score_distinct(cases))
        keep = [i for i in range(len(cases)) if i not in empty]
        scored = iter(self._score_distinct([cases[i] for i in keep]) if keep else [])
        out = []
        for i in range(len(cases)):
            if i in empty:
                message = f"the embedder returned an all-zero vector for {quote(empty[i])!r}"
                result = CaseResult.error(self.metric_names(), message)
                result.details["problems"] = [problem("empty_embedding", message)]
                out.append(result)
            else:
                out.append(next(scored))
        return self._flag_cut_inputs(cases, out)

    def _flag_cut_inputs(
        self, cases: Sequence[TestCase], results: list[CaseResult]
    ) -> list[CaseResult]:
        """Add a ``token_limit`` problem to each case that embedded a text longer than the
        model's input (the model reads only its first ``token_limit`` tokens: never silent)."""
        embedder = self.resolved_embedder()
        over = set(texts_over_limit(embedder, [t for c in cases for t in self.texts_to_encode(c)]))
        if not over:
            return results
        limit = embedder.token_limit
        for case, result in zip(cases, results, strict=True):
            cut = sum(t in over for t in dict.fromkeys(self.texts_to_encode(case)))
            if cut:
                result.details.setdefault("problems", []).append(problem(
                    "token_limit", f"{cut} text(s) over the embedding model's {limit}-token "
                                   "input were cut to it: the cut text was not read"))
        return results

    def _empty_embeddings(self, cases: Sequence[TestCase]) -> dict[int, str]:
        """Index → first text of that case whose embedding is all zeros (cached: no re-encoding
        cost beyond a lookup)."""
        vectors = self.encode_cases(cases)
        zero = {text for text in vectors if not np.any(vectors[text])}
        if not zero:
            return {}
        found = {}
        for index, case in enumerate(cases):
            hit = next((t for t in self.texts_to_encode(case) if t in zero), None)
            if hit is not None:
                found[index] = hit
        return found

    def _score_distinct(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        first: dict[Hashable, int] = {}
        slots = [first.setdefault(self.case_key(c), len(first)) for c in cases]
        if len(first) == len(cases):
            return self.score_unique(list(cases))
        representatives: list[TestCase] = [cases[0]] * len(first)
        for case, slot in zip(cases, slots, strict=True):
            representatives[slot] = case
        unique = self.score_unique(representatives)
        return [unique[slot] for slot in slots]

    def score_unique(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        """Score cases with pairwise different inputs: the texts of the whole batch are encoded
        in one call, then :meth:`score_case` scores each case from those vectors."""
        vectors = self.encode_cases(cases)
        out = []
        for case in cases:
            result = self.score_case(case, vectors)
            if isinstance(result, str):
                result = CaseResult.skipped(self.metric_names(), result)
            out.append(result)
        return out

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        """The result of one case from the batch's ``vectors``, or the reason it is skipped."""
        raise NotImplementedError


def cosine_metric(name: str, description: str, *, threshold: float | None = None,
                  primary: bool = False) -> MetricSpec:
    """A metric whose value is a cosine similarity: higher is better, in ``[-1, 1]``.

    Example:
        >>> cosine_metric("emb_x_min", "least similarity of x", threshold=0.5).range
        (-1.0, 1.0)
    """
    return MetricSpec(name, description, range=(-1.0, 1.0), threshold=threshold, primary=primary)


class WeightedEmbeddingEvaluator(EmbeddingEvaluator):
    """An embedding evaluator with a weighted mean over sentences among its metrics; ``weights``
    as in :func:`sentence_weights`."""

    def __init__(
        self, embedder: str | Embedder = DEFAULT_SPEC, weights: str | Sequence[float] = "length"
    ) -> None:
        super().__init__(embedder)
        check_weights(weights, type(self).__name__)
        self.weights = weights


def identity_keys(cases: Sequence[TestCase], fields: Sequence[str]) -> list[Hashable]:
    """Per case, the ids of its ``fields`` values (one int for one field, else a tuple).

    Built column by column (``map`` over ``attrgetter``), about 3x faster than a tuple per case.

    Example:
        >>> a = TestCase(id="a", question="q?", actual_answer="x")
        >>> b = a.model_copy(update={"id": "b"})
        >>> keys = identity_keys([a, b], ("question", "actual_answer"))
        >>> keys[0] == keys[1]
        True
    """
    columns = [map(id, map(attrgetter(name), cases)) for name in fields]
    return list(columns[0]) if len(columns) == 1 else list(zip(*columns, strict=True))


def prefetch_embeddings(
    evaluators: Sequence[Evaluator],
    cases: Sequence[TestCase],
    *,
    max_texts: int = PREFETCH_TEXTS,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Encode up front, per embedder, the distinct texts that the embedding evaluators (and the
    evaluators of models over the same vectors, such as the NLI head) will ask for, sorted by
    length and in chunks of :data:`PREFETCH_CHUNK`; return how many were encoded.

    Why: each evaluator otherwise encodes its own new texts batch by batch, in many small calls,
    and a small call pads badly and ends in a part-filled batch (measured: the same 682 texts cost
    15-20% more in the five calls of a run than in one). Texts are collected from the first case
    of each distinct input only, and at most ``max_texts`` per embedder (the rest are encoded on
    demand, as without prefetching), so the in-memory cache is never flooded. ``progress`` gets
    ``(texts done, texts in all)`` after each chunk.

    Example:
        >>> from assay.evaluators.embedding_groundedness import EmbGroundedness
        >>> from assay.backends.embed.fake import FakeEmbedder
        >>> fake = FakeEmbedder()
        >>> case = TestCase(id="1", actual_answer="Fees are low. Cards are free.",
        ...                 retrieved_context=["Fees are low."])
        >>> prefetch_embeddings([EmbGroundedness(embedder=fake)], [case, case])
        2
        >>> fake.calls
        1
    """
    wanted: dict[int, tuple[CachedEmbedder, dict[str, None]]] = {}
    with_tokens: set[int] = set()  # embedders whose token matrices some evaluator reads
    by_fields: dict[tuple[str, ...], list[tuple[Any, CachedEmbedder]]] = {}
    for evaluator in evaluators:
        # Embedding evaluators, and any other evaluator whose model reads these vectors (the
        # NLI evaluators on the shipped head) and says so with embedder_for_prefetch().
        find = getattr(evaluator, "embedder_for_prefetch", None)
        embedder = find() if callable(find) else None
        if embedder is not None:
            by_fields.setdefault(tuple(evaluator.requires), []).append((evaluator, embedder))
    for fields, group in by_fields.items():  # distinct inputs found once per set of fields
        distinct = dict(zip(identity_keys(cases, fields), cases, strict=True)).values()
        for evaluator, embedder in group:
            texts = wanted.setdefault(id(embedder), (embedder, {}))[1]
            if getattr(evaluator, "needs_tokens", False) and embedder.has_tokens:
                with_tokens.add(id(embedder))
            for case in distinct:
                if len(texts) >= max_texts:
                    break
                if not evaluator.missing_fields(case):
                    texts.update(dict.fromkeys(t for t in evaluator.texts_to_encode(case) if t))
    total = sum(len(texts) for _, texts in wanted.values())
    done = 0
    # An embedder derived from another (a fine-tuned top layer) goes first: its pass hands the
    # base's outputs to the base's cache, so the base then finds those texts encoded.
    derived_first = sorted(wanted.values(),
                           key=lambda item: getattr(item[0].backend, "derived_from", None) is None)
    for embedder, texts in derived_first:
        ordered = sorted(texts, key=len)
        for start in range(0, len(ordered), PREFETCH_CHUNK):
            chunk = ordered[start : start + PREFETCH_CHUNK]
            if id(embedder) in with_tokens:  # asked for now, so they are kept on disk too
                embedder.encode_with_tokens(chunk)
            else:
                embedder.encode(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
    return total


#: The embedding evaluators' run-level step (its name is the manifest's ``timings_s`` key).
EMBEDDING_PREFETCH = Prefetch("embeddings", prefetch_embeddings)


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run numpy's BLAS on one thread: per-case similarity matrices are small, and threaded BLAS
    on small products is slower, catastrophically so on a busy machine (measured 45x on 2
    shared cores). torch's own thread pool (OpenMP) is not affected."""
    global _CONTROLLER
    try:
        if _CONTROLLER is None:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
        limiter = _CONTROLLER.limit(limits=1, user_api="blas")
    except Exception:  # threadpoolctl missing or unable to inspect: run unlimited
        yield
        return
    with limiter:
        yield


_CONTROLLER: Any = None


# -- sentences and matrices --------------------------------------------------------------
def sentences_of(text: str | None) -> list[str]:
    """Sentences of ``text`` (shared splitter), or ``[]`` for an empty text.

    Example:
        >>> sentences_of("The fee is 12 euros. It is waived above 5,000 euros.")
        ['The fee is 12 euros.', 'It is waived above 5,000 euros.']
    """
    return split_sentences(text) if text else []


def chunk_sentences(chunks: Sequence[str] | None) -> tuple[list[str], list[int]]:
    """Sentences of all chunks in order, and the chunk index of each.

    Example:
        >>> chunk_sentences(["The fee is low. It is waived.", "No fee."])
        (['The fee is low.', 'It is waived.', 'No fee.'], [0, 0, 1])
    """
    sentences: list[str] = []
    owners: list[int] = []
    for index, chunk in enumerate(chunks or []):
        found = sentences_of(chunk)
        sentences.extend(found)
        owners.extend([index] * len(found))
    return sentences, owners


class SentenceVectors(Mapping[str, np.ndarray]):
    """The unit rows of distinct texts, kept as one matrix: :func:`stack` gathers a case's rows
    with one indexing operation instead of stacking row objects (the per-case cost that
    dominates scoring once the embeddings are cached).

    Example:
        >>> vectors = SentenceVectors(["a", "b"], np.eye(2, dtype=np.float32))
        >>> stack(vectors, ["b", "a", "b"]).tolist()
        [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
        >>> vectors["a"].tolist(), len(vectors), "c" in vectors
        ([1.0, 0.0], 2, False)
    """

    def __init__(self, texts: Sequence[str], matrix: np.ndarray) -> None:
        self.index = {text: row for row, text in enumerate(texts)}
        self.matrix = matrix

    def __getitem__(self, text: str) -> np.ndarray:
        return self.matrix[self.index[text]]

    def __iter__(self) -> Iterator[str]:
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)

    def rows(self, texts: Sequence[str]) -> np.ndarray:
        """The rows of ``texts``, in order, as a new matrix."""
        index = self.index
        return self.matrix[[index[t] for t in texts]]


def stack(vectors: SentenceVectors, texts: Sequence[str]) -> np.ndarray:
    """Rows of ``texts`` looked up in ``vectors``, as a matrix."""
    return vectors.rows(texts)


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarities of unit rows, clipped to [-1, 1]: a float32 product (the precision of
    the embeddings), returned as float64.

    Example:
        >>> cosine_matrix(np.eye(2), np.eye(2)).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    product = np.asarray(a, np.float32) @ np.asarray(b, np.float32).T
    np.minimum(np.maximum(product, -1.0, out=product), 1.0, out=product)  # ufuncs: no wrapper cost
    return product.astype(np.float64)


def sentence_weights(
    sentences: Sequence[str], weights: str | Sequence[float], where: str
) -> np.ndarray:
    """Weights of sentences: ``"length"`` (word count), ``"uniform"``, or explicit positional
    weights (sentence ``i`` takes ``weights[i]``, sentences past the end take the last one).

    Example:
        >>> sentence_weights(["a b c", "d"], "length", "f").tolist()
        [3.0, 1.0]
        >>> sentence_weights(["a", "b", "c"], [2.0, 1.0], "f").tolist()
        [2.0, 1.0, 1.0]
    """
    n = len(sentences)
    if weights == "uniform":
        out = np.ones(n)
    elif weights == "length":
        out = np.array([max(len(words(s)), 1) for s in sentences], dtype=float)
    else:
        given = [float(w) for w in weights]
        out = np.array([given[min(i, len(given) - 1)] for i in range(n)], dtype=float)
    if out.sum() <= 0:
        out = np.ones(n)
    return out


def check_weights(weights: Any, where: str) -> None:
    """Validate a ``weights`` parameter."""
    ok = weights in ("length", "uniform") or (
        isinstance(weights, list | tuple)
        and len(weights) > 0
        and all(isinstance(w, int | float) and w >= 0 for w in weights)
        and sum(weights) > 0
    )
    check(ok, "weights", where, "'length', 'uniform' or a list of non-negative numbers", weights)


class AnswerAgainstContext(EmbeddingEvaluator):
    """An embedding evaluator that scores the answer's sentences against the retrieved
    context's: it encodes both and skips a case where either has no sentence; a subclass writes
    :meth:`score_sentences` (groundedness: each answer sentence's best context match;
    completeness: each context sentence's best answer match)."""

    requires = ("actual_answer", "retrieved_context")
    #: Which answer sentences are scored (:mod:`assay.evaluators.claim_sentences`).
    sentences: str = "all"

    def texts_to_encode(self, case: TestCase) -> list[str]:
        answer = scored_sentences(case, self.sentences)[0]
        return answer + chunk_sentences(case.retrieved_context)[0]

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        answer, set_aside = scored_sentences(case, self.sentences)
        context, owners = chunk_sentences(case.retrieved_context)
        reason = skip_reason(answer, set_aside)
        if reason:
            return reason
        if not context:
            return "the context has no sentences"
        return with_set_aside(self.score_sentences(answer, context, owners, vectors), set_aside)

    def score_sentences(self, answer: list[str], context: list[str], owners: list[int],
                        vectors: SentenceVectors) -> CaseResult:
        """The result of a case from its answer sentences, context sentences (``owners``: the
        chunk of each) and the batch's ``vectors``."""
        raise NotImplementedError


def matched_sentences(
    sentences: Sequence[str],
    others: Sequence[str],
    sims: np.ndarray,
    other: str,
    owners: Sequence[int] | None = None,
) -> list[dict[str, object]]:
    """Per sentence (row of ``sims``), its best similarity and the best-matching sentence of
    ``others`` (column), under the key ``best_<other>_sentence``; with ``owners``, also the chunk
    of that sentence. The drill-down evidence of the sentence-by-sentence metrics.

    Example:
        >>> matched_sentences(["a"], ["b", "c"], np.array([[0.2, 0.9]]), "context", [0, 3])
        [{'sentence': 'a', 'max_sim': 0.9, 'best_context_sentence': 'c', 'chunk': 3}]
    """
    best, match = sims.max(axis=1), sims.argmax(axis=1)
    rows: list[dict[str, object]] = []
    for i, sentence in enumerate(sentences):
        j = int(match[i])
        row: dict[str, object] = {
            "sentence": quote(sentence),
            "max_sim": round(float(best[i]), 4),
            f"best_{other}_sentence": quote(others[j]),
        }
        if owners is not None:
            row["chunk"] = owners[j]
        rows.append(row)
    return rows
