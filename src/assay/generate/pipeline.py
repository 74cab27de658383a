"""The generation pipeline: corpus → chunks → embeddings → topics → stratified slots → key facts
→ questions → selection → :class:`~assay.data.TestSuite`, plus a report and a topic map.

Everything is seeded; the parameters, the seed, the judge's settings and the embedder's identity
are recorded in the report, and each case records its source chunk ids, topic, query type, TREC
class and generator model in ``metadata``.
"""

from __future__ import annotations

import logging
import math
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.embed import get_embedder
from assay.backends.embed.base import Embedder
from assay.backends.llm.client import Judge
from assay.backends.llm.factory import JudgeSpec, make_judge
from assay.corpus.chunking import Chunk, chunk_documents
from assay.corpus.ingest import Corpus, ingest
from assay.data.case import TestCase
from assay.data.suite import TestSuite, write_suite
from assay.errors import InvalidInputError
from assay.fileio import write_json, write_text
from assay.generate.compact import COMPACT_TYPES, compact_types, write_compact
from assay.generate.completeness import DEFAULT_MIN_KEPT, Shortfall, shortfall
from assay.generate.coverage import coverage_markdown
from assay.generate.questions import (
    Candidate,
    PlaceholderError,
    fallback_facts,
    group_slots,
    key_facts_task,
    outcome_error,
    parse_item,
    questions_task,
    run_in_batches,
)
from assay.generate.report import build_report
from assay.generate.sampling import allocate, plan_slots
from assay.generate.scripted import is_dry_run
from assay.generate.selection import SelectionConfig, select
from assay.generate.taxonomy import QueryType, resolve_types, trec_class
from assay.generate.topic_map import topic_map_svg
from assay.generate.topics import NOISE, TopicModel, build_topics
from assay.params import check, check_choice, check_int
from assay.progress import ProgressCallback

logger = logging.getLogger(__name__)
#: Question writers: ``full`` (capable models) and ``compact`` (small local models).
WRITERS = ("full", "compact")


@dataclass(frozen=True)
class GenerationConfig:
    """Parameters of :func:`generate` (all recorded in the report).

    ``n`` questions are planned over the topics; with ``oversample > 1`` that many times more are
    written and the surplus beyond each topic's quota is dropped after selection
    (``over_quota``). ``weights`` maps topic ids (or ``"noise"``) to importance for the
    ``weighted`` strategy. A generation keeping fewer than ``min_kept`` of ``n`` is incomplete
    (:attr:`GenerationResult.shortfall`). ``writer`` is ``"full"`` (key facts, then the
    questions of a slot group in one reply: for capable models) or ``"compact"`` (one short
    grammar-constrained question per request, the answer taken from the chunk: for small local
    models; :mod:`assay.generate.compact`).
    """

    n: int = 50
    types: tuple[str, ...] | None = None
    chunk_size: int = 120
    overlap: int = 1
    reducer: str = "pca"
    n_components: int = 10
    cluster: str = "kmeans"
    k: int | None = None
    k_range: tuple[int, int] = (2, 12)
    min_cluster_size: int = 5
    strategy: str = "proportional"
    weights: Mapping[str, float] = field(default_factory=dict)
    max_per_chunk: int = 3
    oversample: float = 1.0
    max_facts: int = 8
    max_tokens: int | None = None
    batch_size: int = 16
    seed: int = 0
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    min_kept: float = DEFAULT_MIN_KEPT
    writer: str = "full"

    def __post_init__(self) -> None:
        check_int(self.n, "n", "GenerationConfig")
        check(0.0 <= self.min_kept <= 1.0, "min_kept", "GenerationConfig",
              "a share between 0 and 1", self.min_kept)
        check_choice(self.writer, WRITERS, "writer", "GenerationConfig")
        check(self.oversample >= 1.0, "oversample", "GenerationConfig", "at least 1",
              self.oversample)
        check_int(self.batch_size, "batch_size", "GenerationConfig")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record."""
        data = asdict(self)
        data["weights"] = dict(self.weights)
        data["types"] = list(self.types) if self.types is not None else None
        data["k_range"] = list(self.k_range)
        return data


@dataclass
class GenerationResult:
    """What :func:`generate` made: the suite, the report, and the intermediate values."""

    suite: TestSuite
    report: dict[str, Any]
    corpus: Corpus
    chunks: list[Chunk]
    topics: TopicModel
    candidates: list[Candidate]

    @property
    def shortfall(self) -> Shortfall | None:
        """Why the generation kept too few questions (None when it kept enough)."""
        return shortfall(self.report, float(self.report["config"]["min_kept"]))

    def topic_map(self) -> str:
        """The topic map as SVG text."""
        kept: dict[int, int] = {}
        for c in self.candidates:
            if c.dropped is None:
                kept[c.slot.topic_id] = kept.get(c.slot.topic_id, 0) + 1
        sampled = sorted({i for c in self.candidates for i in c.slot.chunks})
        return topic_map_svg(self.topics, sampled=sampled, questions=kept,
                             chunk_ids=[c.id for c in self.chunks],
                             title=f"Topic map ({len(self.chunks)} chunks)")

    def write(self, out: str | os.PathLike[str]) -> dict[str, Path]:
        """Write the suite to ``out`` and its sidecars beside it: ``<stem>.generation.json``
        (the report), ``<stem>.coverage.md``, ``<stem>.topics.svg`` and ``<stem>.chunks.jsonl``
        (the chunks, so ``relevant_ids`` can be resolved). Returns the paths by kind.

        An incomplete generation (:attr:`shortfall`) is written under ``<stem>.incomplete``
        instead (``suite.incomplete.jsonl`` ...), so nothing at ``out`` looks complete."""
        target = Path(out)
        if self.shortfall is not None:
            target = target.with_name(f"{target.stem}.incomplete{target.suffix}")
        stem = target.with_suffix("")
        paths = {
            "suite": write_suite(self.suite, target),
            "report": write_json(f"{stem}.generation.json", self.report),
            "coverage": write_text(f"{stem}.coverage.md", coverage_markdown(self.report)),
            "topic_map": write_text(f"{stem}.topics.svg", self.topic_map()),
        }
        import json

        lines = [json.dumps({**c.to_dict(), "topic_id": int(t)}, ensure_ascii=False)
                 for c, t in zip(self.chunks, self.topics.labels.tolist(), strict=True)]
        paths["chunks"] = write_text(f"{stem}.chunks.jsonl", "\n".join(lines) + "\n")
        return paths


def _weights(config: GenerationConfig, model: TopicModel) -> dict[int, float]:
    out: dict[int, float] = {}
    ids = {t.id for t in model.topics}
    for key, value in config.weights.items():
        topic_id = NOISE if str(key).strip().lower() == "noise" else int(key)
        if topic_id not in ids:
            raise InvalidInputError(f"weight given for topic {key!r}, but the topics are "
                                    f"{sorted(ids)}")
        out[topic_id] = float(value)
    return out


def _key_facts(judge: Judge, chunks: Sequence[Chunk], needed: Sequence[int],
               config: GenerationConfig, progress: ProgressCallback | None
               ) -> tuple[dict[int, list[str]], dict[int, str]]:
    tasks = [key_facts_task(chunks[i], max_facts=config.max_facts, max_tokens=config.max_tokens)
             for i in needed]
    outcomes = run_in_batches(
        judge, tasks, batch_size=config.batch_size,
        progress=None if progress is None else lambda d, t: progress("extracting key facts", d, t),
    )
    facts: dict[int, list[str]] = {}
    fallbacks: dict[int, str] = {}
    for index, outcome in zip(needed, outcomes, strict=True):
        if outcome.ok and outcome.value:
            facts[index] = list(outcome.value)
        else:
            facts[index] = fallback_facts(chunks[index].text, config.max_facts) or [
                chunks[index].text]
            fallbacks[index] = outcome.error or "no facts"
    return facts, fallbacks


def _write_questions(judge: Judge, chunks: Sequence[Chunk], slots: Sequence[Any],
                     facts: Mapping[int, list[str]], types: Mapping[str, QueryType],
                     config: GenerationConfig,
                     progress: ProgressCallback | None) -> list[Candidate]:
    groups = list(group_slots(slots).items())
    tasks = [questions_task(types[qtype], [chunks[i] for i in key], [facts[i] for i in key],
                            len(members), polarity=polarity, max_tokens=config.max_tokens)
             for (key, qtype, polarity), members in groups]
    outcomes = run_in_batches(
        judge, tasks, batch_size=config.batch_size,
        progress=None if progress is None else lambda d, t: progress("writing questions", d, t),
    )
    candidates: list[Candidate] = []
    for ((key, qtype, _), members), outcome in zip(groups, outcomes, strict=True):
        items = list(outcome.value) if outcome.ok else []
        for j, slot in enumerate(members):
            candidate = Candidate(slot, facts=[f for i in key for f in facts[i]])
            if not outcome.ok:
                candidate.drop(*outcome_error(outcome))
            elif j >= len(items):
                candidate.drop("not_generated", f"the judge wrote {len(items)} of "
                                                f"{len(members)} questions")
            else:
                try:
                    parsed = parse_item(items[j], types[qtype],
                                        random.Random(config.seed * 1_000_003 + slot.index))
                except PlaceholderError as exc:
                    candidate.drop("placeholder", str(exc))
                except ValueError as exc:
                    candidate.drop("malformed", str(exc))
                else:
                    candidate.question = parsed["question"]
                    candidate.answer = parsed["answer"]
                    candidate.options = parsed["options"]
                    candidate.correct = parsed["correct"]
                    if parsed.get("missing"):
                        candidate.detail = str(parsed["missing"])
            candidates.append(candidate)
    return sorted(candidates, key=lambda c: c.slot.index)


def _trim(candidates: Sequence[Candidate], quotas: Mapping[int, int]) -> None:
    kept: dict[int, int] = {}
    for candidate in candidates:
        if candidate.dropped is not None:
            continue
        topic = candidate.slot.topic_id
        kept[topic] = kept.get(topic, 0) + 1
        if kept[topic] > quotas.get(topic, 0):
            candidate.drop("over_quota", f"topic {topic} already has its "
                                         f"{quotas.get(topic, 0)} questions")


def _cases(candidates: Sequence[Candidate], chunks: Sequence[Chunk], model: TopicModel,
           types: Mapping[str, QueryType], judge: Judge, seed: int) -> list[TestCase]:
    cases: list[TestCase] = []
    for candidate in (c for c in candidates if c.dropped is None):
        slot = candidate.slot
        qtype = types[slot.query_type]
        topic = model.topic(slot.topic_id)
        source_ids = [chunks[i].id for i in slot.chunks]
        metadata: dict[str, Any] = {
            "source_chunk_ids": source_ids,
            "source_documents": list(dict.fromkeys(chunks[i].document_id for i in slot.chunks)),
            "topic_id": topic.id,
            "topic_label": topic.label,
            "query_type": qtype.name,
            "answer_format": qtype.answer_format,
            "answerable": qtype.answerable,
            "trec_class": trec_class(candidate.question or ""),
            "key_facts": candidate.facts,
            "generator_model": judge.model,
            "generation_seed": seed,
            **({"dry_run": True} if is_dry_run(judge) else {}),
            "slot": slot.index,
            "scores": candidate.scores,
        }
        if candidate.options is not None:
            metadata["options"] = candidate.options
            metadata["correct_option"] = candidate.correct
        if candidate.correct in ("yes", "no"):
            metadata["yes_no"] = candidate.correct
        if not qtype.answerable and candidate.detail:
            metadata["missing_information"] = candidate.detail
        cases.append(TestCase(
            id=f"gen-{len(cases) + 1:04d}",
            question=candidate.question,
            expected_answer=candidate.answer,
            relevant_ids=source_ids if qtype.answerable else None,
            topic=topic.label,
            query_type=qtype.name,
            metadata=metadata,
        ))
    return cases


def generate(
    sources: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | Corpus,
    *,
    judge: JudgeSpec = None,
    embedder: str | Embedder = "minilm",
    config: GenerationConfig | None = None,
    taxonomy: Mapping[str, QueryType] | None = None,
    progress: ProgressCallback | None = None,
) -> GenerationResult:
    """Generate a test suite covering every topic of a corpus.

    Args:
        sources: A folder, files, or an ingested :class:`Corpus`.
        judge: The question writer (see :func:`~assay.backends.llm.make_judge`).
        embedder: Embeds chunks and questions (spec or instance).
        config: Parameters (defaults: 50 questions over all default types).
        taxonomy: Extra or replacement query types (names usable in ``config.types``).
        progress: ``progress(task, done, total)`` callback (the CLI draws bars).

    Raises:
        InvalidInputError: when no document could be read (naming the files and reasons).

    Example:
        >>> import tempfile, pathlib
        >>> from assay.generate.scripted import scripted_generation_judge
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "fees.md").write_text("The Everyday account costs 4.50 euros a month. "
        ...     "The fee is waived for students.")
        >>> result = generate(folder, judge=scripted_generation_judge(), embedder="fake",
        ...                   config=GenerationConfig(n=2, types=("factual",)))
        >>> [c.query_type for c in result.suite], result.report["summary"]["topics_covered"]
        (['factual', 'factual'], 1)
    """
    config = config or GenerationConfig()
    started = time.perf_counter()
    compact = config.writer == "compact"
    wanted = config.types
    if wanted is None and compact and taxonomy is None:
        wanted = COMPACT_TYPES
    types_list = resolve_types(wanted, taxonomy)
    if compact:
        compact_types(types_list)
    types = {t.name: t for t in types_list}
    corpus = sources if isinstance(sources, Corpus) else ingest(sources, progress=progress)
    if not corpus.documents:
        listed = "; ".join(reason for _, reason in corpus.failures) or "no supported files"
        raise InvalidInputError(f"no document could be read: {listed}")
    chunks = chunk_documents(corpus.documents, size=config.chunk_size, overlap=config.overlap)
    embed = get_embedder(embedder)
    texts = [c.text for c in chunks]
    rows = []
    for start in range(0, len(texts), 64):
        rows.append(np.asarray(embed.encode(texts[start:start + 64]), dtype=np.float64))
        if progress is not None:
            progress("embedding chunks", min(start + 64, len(texts)), len(texts))
    embeddings = np.vstack(rows)
    model = build_topics(embeddings, texts, reducer=config.reducer,
                         n_components=config.n_components, method=config.cluster, k=config.k,
                         k_range=config.k_range, min_cluster_size=config.min_cluster_size,
                         seed=config.seed)
    sizes = {t.id: t.size for t in model.topics}
    weights = _weights(config, model)
    quotas = allocate(sizes, config.n, strategy=config.strategy, weights=weights,
                      max_per_chunk=config.max_per_chunk, seed=config.seed)
    planned = quotas
    if config.oversample > 1:
        planned = allocate(sizes, math.ceil(config.n * config.oversample),
                           strategy=config.strategy, weights=weights, max_per_chunk=None,
                           seed=config.seed)
    slots = plan_slots(model, embeddings, planned, types_list, seed=config.seed)
    judge_client = make_judge(judge)
    needed = sorted({i for s in slots for i in s.chunks})
    fallbacks: dict[int, str] = {}
    if compact:
        candidates = write_compact(
            judge_client, chunks, slots, types, max_facts=config.max_facts,
            batch_size=config.batch_size, seed=config.seed,
            progress=None if progress is None else lambda d, t: progress("writing questions",
                                                                         d, t))
    else:
        facts, fallbacks = _key_facts(judge_client, chunks, needed, config, progress)
        candidates = _write_questions(judge_client, chunks, slots, facts, types, config, progress)
    select(candidates, chunks, embeddings, embed, {t.name: t.answerable for t in types_list},
           config.selection)
    _trim(candidates, quotas)
    cases = _cases(candidates, chunks, model, types, judge_client, config.seed)
    report = build_report(config, types_list, corpus, chunks, model, candidates, quotas,
                     judge_client, embed, fallbacks, chunks_needed=len(needed),
                     seconds=time.perf_counter() - started)
    suite = TestSuite(cases, source="generated")
    return GenerationResult(suite, report, corpus, chunks, model, candidates)


__all__ = ["GenerationConfig", "GenerationResult", "generate"]
