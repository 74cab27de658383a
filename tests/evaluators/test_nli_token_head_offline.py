"""The NLI evaluators on the token NLI head: the engine's one encoding pass keeps the token
matrices the head reads, so scoring sends nothing more to MiniLM, and a rerun over the same
on-disk cache encodes nothing at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.backends import clear_loaded
from assay.backends.embed import get_embedder
from assay.data.suite import read_suite
from assay.evaluators.embedding_base import prefetch_embeddings
from assay.evaluators.nli_contradictions import NLIContradictions
from assay.evaluators.nli_faithfulness import NLIFaithfulness
from assay.evaluators.nli_groundedness import NLIGroundedness
from assay.evaluators.nli_summac import NLISummaCZS

DEMO_SUITE = Path(__file__).resolve().parents[2] / "src" / "assay" / "demo" / "suite.jsonl"


def _evaluators() -> list[object]:
    return [NLIGroundedness(nli="head-token"), NLIFaithfulness(nli="head-token"),
            NLIContradictions(nli="head-token"), NLISummaCZS(nli="head-token")]


def test_prefetch_keeps_the_token_matrices_the_head_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = read_suite(DEMO_SUITE).cases[:12]
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ASSAY_EMBED_CACHE", raising=False)
    clear_loaded()
    try:
        embedder = get_embedder("minilm")
        evaluators = _evaluators()
        assert all(e.needs_tokens for e in evaluators)  # type: ignore[attr-defined]
        assert all(e.embedder_for_prefetch() is embedder  # type: ignore[attr-defined]
                   for e in evaluators)
        encoded = prefetch_embeddings(evaluators, cases)
        assert encoded > 0
        computed = embedder.stats["computed"]
        results = [e.evaluate(cases) for e in evaluators]  # type: ignore[attr-defined]
        assert embedder.stats["computed"] == computed, "the head encoded texts a second time"
        statuses = {o.status.value for rows in results for r in rows for o in r.outcomes.values()}
        assert "error" not in statuses and "ok" in statuses

        clear_loaded()  # a new process over the same cache: every vector and token from disk
        again = get_embedder("minilm")
        rerun = [e.evaluate(cases) for e in _evaluators()]  # type: ignore[attr-defined]
        assert again.stats["computed"] == 0
        assert again.stats["disk"] >= encoded
        assert _values(rerun) == _values(results)
    finally:
        clear_loaded()


def _values(results: list[list[object]]) -> list[list[float | None]]:
    return [[o.value for r in rows for o in r.outcomes.values()]  # type: ignore[attr-defined]
            for rows in results]
