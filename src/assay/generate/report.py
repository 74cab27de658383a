"""The generation report (the ``<stem>.generation.json`` sidecar): everything needed to
reproduce and audit a generated suite."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay._version import __version__
from assay.backends.embed.base import Embedder
from assay.backends.llm.client import Judge
from assay.corpus.chunking import Chunk
from assay.corpus.ingest import Corpus
from assay.generate.completeness import minimum_kept
from assay.generate.coverage import coverage_rows, trec_rows, type_rows
from assay.generate.questions import Candidate
from assay.generate.scripted import is_dry_run
from assay.generate.taxonomy import QueryType
from assay.generate.topics import TopicModel

if TYPE_CHECKING:
    from assay.generate.pipeline import GenerationConfig


def build_report(config: GenerationConfig, types: Sequence[QueryType], corpus: Corpus,
            chunks: Sequence[Chunk], model: TopicModel, candidates: Sequence[Candidate],
            quotas: Mapping[int, int], judge: Judge, embedder: Embedder,
            fallbacks: Mapping[int, str], *, chunks_needed: int, seconds: float
            ) -> dict[str, Any]:
    """The generation report: parameters, seed, generator and embedder, corpus (with unreadable
    files), topics, key-fact fallbacks, summary, coverage tables and every dropped question."""
    coverage = coverage_rows(model, candidates)
    for row in coverage:
        row["quota"] = quotas.get(row["topic_id"], 0)
    kept = sum(1 for c in candidates if c.dropped is None)
    drops = [{"slot": c.slot.index, "topic_id": c.slot.topic_id, "query_type": c.slot.query_type,
              "chunks": [chunks[i].id for i in c.slot.chunks], "question": c.question,
              "answer": c.answer, "reason": c.dropped, "detail": c.detail, "scores": c.scores}
             for c in candidates if c.dropped is not None]
    stats = judge.stats.to_dict()
    return {
        "assay_version": __version__,
        "dry_run": is_dry_run(judge),
        "config": config.to_dict(),
        "seed": config.seed,
        "query_types": [t.to_dict() for t in types],
        "generator": {"model": judge.model, "settings": judge.describe(), "stats": stats},
        "embedder": embedder.model_id,
        "corpus": {
            "documents": [{"id": d.id, "path": d.path, "format": d.format, "chars": len(d.text)}
                          for d in corpus.documents],
            "failures": [{"path": p, "reason": r} for p, r in corpus.failures],
            "skipped": list(corpus.skipped),
            "chunks": len(chunks),
        },
        "topics": model.to_dict(),
        "key_facts": {"chunks": chunks_needed, "fallbacks": len(fallbacks),
                      "fallback_reasons": {chunks[i].id: r for i, r in fallbacks.items()}},
        "summary": {
            "requested": config.n,
            "planned": len(candidates),
            "kept": kept,
            "minimum_kept": minimum_kept(config.n, config.min_kept),
            "complete": kept >= minimum_kept(config.n, config.min_kept),
            "dropped": len(candidates) - kept,
            "topics": len(model.topics),
            "topics_covered": sum(1 for r in coverage if r["covered"]),
            "seconds": round(seconds, 3),
        },
        "coverage": coverage,
        "by_type": type_rows(candidates, [t.name for t in types]),
        "by_trec_class": trec_rows(candidates),
        "dropped": drops,
    }
