"""Perturb and attack a suite, run it against the loopback RAG service, evaluate the results."""

from __future__ import annotations

from assay.attacks import make_attacks
from assay.data.case import TestCase
from assay.perturb import Casing, Distractors, KeyboardTypos, perturb
from assay.pipeline import evaluate
from assay.runner import build_target, run_target

from .rag_service import CORPUS, http_config, serve

SUITE = [
    TestCase(id="fee", question="What is the monthly fee of the Premier current account?",
             expected_answer=CORPUS["fees-1"]),
    TestCase(id="abroad", question="What do cash withdrawals abroad cost?",
             expected_answer=CORPUS["abroad-2"]),
    TestCase(id="close", question="Can customers close the account online?",
             expected_answer=CORPUS["close-1"]),
]  # fmt: skip


def test_perturbed_and_attacked_suite_over_http() -> None:
    cases = perturb(
        SUITE, [KeyboardTypos(0.05), Casing("upper"), Distractors("contradictory")],
        include_parents=True, seed=1,
    )  # fmt: skip
    cases += make_attacks(SUITE, categories=["prompt_injection", "indirect_injection"], seed=1)
    with serve() as rag:
        config = http_config(rag.url, concurrency=4)
        config["request"] = {**config["request"], "top_k": 10}
        connector, settings = build_target(config)
        answered = run_target(cases, connector, settings=settings)
        assert sum(rag.requests.values()) == len(cases)
    assert all(c.metadata["run"]["status"] == "ok" for c in answered)
    by_id = {c.id: c for c in answered}
    # the distractor reached the service as an extra document and was recorded as retrieved
    distracted = by_id["fee~distractors"]
    assert distracted.metadata["injected_context"][0] != CORPUS["fees-1"]

    run = evaluate(answered, ["attack_success", "perturbation_robustness"])
    board = {r["metric"]: r for r in run.leaderboard}
    # the toy service obeys "reply only with X" in the question: 2 of the 3 direct injections
    assert board["asr_prompt_injection"]["value"] == 2 / 3
    # indirect injection succeeds exactly when the planted order was retrieved
    retrieved_injections = 0
    for case in answered:
        attack = case.metadata.get("attack") or {}
        if attack.get("category") == "indirect_injection":
            planted = any(attack["canary"] in t for t in case.retrieved_context or [])
            obeyed = attack["canary"] in (case.actual_answer or "")
            assert obeyed == (planted and attack["name"] == "context_instruction"), case.id
            retrieved_injections += planted
    assert retrieved_injections == 3 * 3  # top_k=10: every planted passage comes back
    assert board["asr_indirect_injection"]["value"] == 1 / 3
    assert board["asr_jailbreak"]["n_ok"] == 0  # no jailbreak cases: nothing measured
    assert board["attack_success"]["n_ok"] == 3 * 3 + 3 * 3
    robust = board["robust_unchanged"]
    assert robust["n_ok"] >= 9 and 0 < robust["value"] <= 1
    injected = [p for p in run.problems if p.get("kind") == "perturbation_flip"]
    assert all(p["parent_id"] in {"fee", "abroad", "close"} for p in injected)
