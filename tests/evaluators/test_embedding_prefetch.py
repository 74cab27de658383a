"""Prefetching a run's embeddings: exactly the texts the evaluators will ask for, in one call."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import evaluate
from assay.backends.embed.fake import FakeEmbedder
from assay.data.case import TestCase
from assay.data.suite import read_suite
from assay.evaluators import evaluator_class, evaluator_names
from assay.evaluators.embedding_base import EmbeddingEvaluator, prefetch_embeddings
from assay.testing import sample_cases

DEMO_SUITE = Path(__file__).resolve().parents[2] / "src" / "assay" / "demo" / "suite.jsonl"
EMBEDDING = [n for n in evaluator_names() if issubclass(evaluator_class(n), EmbeddingEvaluator)]


def _cases() -> list[TestCase]:
    demo = read_suite(DEMO_SUITE).cases[:60] if DEMO_SUITE.is_file() else []
    return sample_cases() + demo


@pytest.mark.parametrize("name", EMBEDDING)
def test_prefetch_covers_every_text_the_evaluator_encodes(name: str) -> None:
    fake = FakeEmbedder()
    evaluator = evaluator_class(name)(embedder=fake)  # type: ignore[call-arg]
    cases = _cases()
    encoded = prefetch_embeddings([evaluator], cases)
    assert fake.calls == 1 and fake.texts_encoded == encoded > 0
    results = evaluator.evaluate(cases)
    accumulator = evaluator.corpus_accumulator()
    if accumulator is not None:
        accumulator.add(cases, results)
        accumulator.finish()
    assert fake.calls == 1, f"{name} encoded texts that texts_to_encode() does not list"


def test_prefetch_is_one_sorted_pass_shared_by_evaluators_of_one_embedder() -> None:
    fake = FakeEmbedder()
    evaluators = [evaluator_class(n)(embedder=fake) for n in EMBEDDING]  # type: ignore[call-arg]
    cases = _cases()
    encoded = prefetch_embeddings(evaluators, cases + cases)  # repeats add nothing
    assert fake.calls == 1 and fake.texts_encoded == encoded
    assert prefetch_embeddings(evaluators, cases) == encoded  # now answered from memory
    assert fake.calls == 1


def test_prefetch_stops_collecting_at_the_limit_and_reports_progress() -> None:
    fake = FakeEmbedder()
    evaluator = evaluator_class("emb_groundedness")(embedder=fake)  # type: ignore[call-arg]
    seen: list[tuple[int, int]] = []
    encoded = prefetch_embeddings(
        [evaluator], _cases(), max_texts=5, progress=lambda d, t: seen.append((d, t))
    )
    assert 5 <= encoded < 5 + 40  # the case that crosses the limit is kept whole
    assert seen[-1] == (encoded, encoded)


def test_evaluate_prefetches_once_and_records_the_step(tmp_path: Path) -> None:
    fake = FakeEmbedder()
    steps: list[str] = []
    run = evaluate(
        _cases(),
        [evaluator_class(n)(embedder=fake) for n in ("emb_groundedness", "emb_completeness")],  # type: ignore[call-arg]
        out=tmp_path / "run",
        progress=lambda name, done, total: steps.append(name),
    )
    assert fake.calls == 1
    assert steps[0] == "embeddings"
    assert "embeddings" in run.manifest["timings_s"]


def test_prefetch_for_token_metrics_keeps_token_matrices_on_disk(tmp_path: Path) -> None:
    from assay.backends.embed import CachedEmbedder, EmbeddingCache

    fake = FakeEmbedder()
    embedder = CachedEmbedder(fake, EmbeddingCache(tmp_path))
    evaluators = [
        evaluator_class(n)(embedder=embedder) for n in ("emb_groundedness", "emb_bertscore")
    ]  # type: ignore[call-arg]
    cases = _cases()
    encoded = prefetch_embeddings(evaluators, cases)
    stored = EmbeddingCache(tmp_path).get(fake.model_id, list(embedder._vectors), tokens=True)
    assert len(stored) == encoded  # a later eviction from memory is served from disk


class _BrokenEmbedder(FakeEmbedder):
    def encode(self, texts):  # type: ignore[no-untyped-def]
        raise RuntimeError("the model could not be loaded")

    def encode_with_tokens(self, texts):  # type: ignore[no-untyped-def]
        raise RuntimeError("the model could not be loaded")


def test_a_failing_prefetch_does_not_stop_the_run(tmp_path: Path) -> None:
    run = evaluate(
        _cases(),
        [evaluator_class("emb_groundedness")(embedder=_BrokenEmbedder()), "exact_match"],  # type: ignore[call-arg]
        out=tmp_path / "run",
    )
    rows = run.results
    broken = rows[rows["evaluator"] == "emb_groundedness"]
    assert set(broken["status"]) <= {"error", "skipped"} and (broken["status"] == "error").any()
    assert (
        broken.loc[broken["status"] == "error", "reason"].str.contains("could not be loaded").all()
    )
    assert (rows.loc[rows["evaluator"] == "exact_match", "status"] == "ok").any()
    assert "embeddings" not in run.manifest["timings_s"]
