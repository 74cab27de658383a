"""The NLI evaluators on their default model (the shipped head): ok outcomes offline, and the
head's texts covered by the engine's one embedding pass."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from assay import evaluate
from assay.backends.embed import get_embedder
from assay.data.suite import read_suite
from assay.evaluators.embedding_base import prefetch_embeddings
from assay.evaluators.nli_faithfulness import NLIFaithfulness
from assay.evaluators.nli_groundedness import NLIGroundedness
from assay.evaluators.nli_summac import NLISummaCZS

DEMO_SUITE = Path(__file__).resolve().parents[2] / "src" / "assay" / "demo" / "suite.jsonl"
NLI_DEFAULTS = ["nli_groundedness", "nli_faithfulness", "nli_contradictions", "nli_summac_zs"]


def test_nli_evaluators_score_the_demo_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: socket.socket, address: Any) -> None:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    cases = read_suite(DEMO_SUITE).cases[:24]
    rows = evaluate(cases, NLI_DEFAULTS).results
    assert "error" not in set(rows["status"]), rows[rows["status"] == "error"]["reason"].tolist()
    ok = rows[rows["status"] == "ok"]
    for metric in ("nli_groundedness_mean", "nli_faithfulness", "nli_summac_zs"):
        values = ok[ok["metric"] == metric]["value"]
        assert len(values) >= 20, metric
        assert values.between(-1.0, 1.0).all()
        assert values.nunique() > 2, f"{metric} does not vary across the demo"


def test_the_demo_s_hallucinating_model_is_less_grounded() -> None:
    cases = read_suite(DEMO_SUITE).cases
    rows = evaluate(cases, ["nli_groundedness"]).results
    ok = rows[(rows["status"] == "ok") & (rows["metric"] == "nli_groundedness_mean")]
    means = ok.groupby("model")["value"].mean()
    assert means["faithful"] > means["hallucinating"]


def test_prefetch_covers_every_text_the_head_embeds() -> None:
    cases = read_suite(DEMO_SUITE).cases[:30]
    embedder = get_embedder("minilm", cache_dir=None)
    evaluators = [NLIGroundedness(), NLIFaithfulness(), NLISummaCZS()]
    assert all(e.embedder_for_prefetch() is embedder for e in evaluators)
    assert prefetch_embeddings(evaluators, cases) > 0
    computed = embedder.stats["computed"]
    memory = embedder.stats["memory"]
    for evaluator in evaluators:
        evaluator.evaluate(cases)
    assert embedder.stats["computed"] == computed, "the head embedded texts the prefetch missed"
    assert embedder.stats["memory"] > memory
