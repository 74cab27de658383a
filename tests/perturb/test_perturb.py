"""Perturbations: seeded, linked to parents, parent fields kept, each doing what it says."""

from __future__ import annotations

import base64
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.backends.llm import TransientBackendError
from assay.cli.main import cli
from assay.data import read_suite, write_suite
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.perturb import (
    PERTURBATIONS,
    Casing,
    CharDrop,
    CharDuplicate,
    CharSwap,
    Colloquial,
    Contractions,
    Copies,
    DemographicCounterfactual,
    Distractors,
    Encoding,
    Homoglyphs,
    KeyboardTypos,
    Leetspeak,
    LLMParaphrase,
    OutOfDistribution,
    PunctuationNoise,
    WhitespaceNoise,
    get_perturbation,
    perturb,
)

CONTEXT = [
    "The Premier account has a monthly fee of 12 euros.",
    "The fee is waived when the balance stays above 5000 euros.",
]


def parent(**update: object) -> TestCase:
    base = TestCase(
        id="q1",
        model="rag-v1",
        question="What is the monthly fee of the Premier account?",
        expected_answer="12 euros a month.",
        retrieved_context=CONTEXT,
        context_ids=["fees-1", "fees-2"],
        relevant_ids=["fees-1"],
        actual_answer="It is 12 euros.",
        latency_s=0.4,
        cost_usd=0.001,
        topic="fees",
        query_type="factual",
        labels={"human": 1},
        metadata={"source": "faq", "run": {"status": "ok"}},
    )
    return base.model_copy(update=update)


OTHER = TestCase(
    id="q2",
    question="What do cash withdrawals abroad cost?",
    retrieved_context=[
        "Cash withdrawals abroad cost 3 euros each. The monthly limit is 1000 euros."
    ],
)
NOISE = [
    KeyboardTypos(0.1),
    CharSwap(0.1),
    CharDrop(0.1),
    CharDuplicate(0.1),
    Casing("upper"),
    WhitespaceNoise(0.5),
    PunctuationNoise(0.3),
    Contractions(),
    Colloquial(),
    Leetspeak(),
    Homoglyphs(),
    Encoding("base16"),
]


def test_children_link_to_parent_keep_fields_and_clear_run_outputs() -> None:
    children = perturb([parent()], NOISE, seed=3)
    assert len(children) == len(NOISE)
    for child, p in zip(children, NOISE, strict=True):
        assert child.id == f"q1~{p.name}" and child.parent_id == "q1"
        assert child.perturbation == p.name
        assert child.question != parent().question
        record = child.metadata["perturbation"]
        assert record == {"name": p.name, "params": p.get_params(), "seed": 3}
        # everything of the parent is kept ...
        assert child.expected_answer == "12 euros a month." and child.relevant_ids == {
            "fees-1": 1.0
        }
        assert (child.topic, child.query_type, child.labels) == ("fees", "factual", {"human": 1})
        assert child.metadata["source"] == "faq"
        # ... except what one run of the system produced
        assert child.actual_answer is None and child.model is None
        assert child.retrieved_context is None and child.latency_s is None
        assert child.cost_usd is None and "run" not in child.metadata


def test_seeded_reproducible_and_order_independent() -> None:
    cases = [parent(), OTHER]
    first = perturb(cases, NOISE, seed=7)
    assert first == perturb(cases, NOISE, seed=7)
    assert {c.id: c for c in first} == {c.id: c for c in perturb(cases[::-1], NOISE, seed=7)}
    other_seed = perturb(cases, NOISE, seed=8)
    assert sum(a.question != b.question for a, b in zip(first, other_seed, strict=True)) >= 5


def test_character_noise_rates() -> None:
    text = "What is the monthly fee of the Premier current account in euros"
    letters = sum(ch.isalpha() for ch in text)
    rng = random.Random(0)
    typo = KeyboardTypos(0.1).transform(text, rng)
    assert len(typo) == len(text)
    changed = sum(a != b for a, b in zip(typo, text, strict=True))
    assert 1 <= changed <= round(0.1 * letters)
    assert len(CharDrop(0.1).transform(text, rng)) == len(text) - round(0.1 * letters)
    assert len(CharDuplicate(0.1).transform(text, rng)) == len(text) + round(0.1 * letters)
    assert sorted(CharSwap(0.1).transform(text, rng)) == sorted(text)
    assert Casing("lower").transform("ABC d", rng) == "abc d"
    assert "".join(WhitespaceNoise(1.0).transform(text, rng).split()) == "".join(text.split())
    with pytest.raises(InvalidInputError, match="'rate' parameter of KeyboardTypos"):
        KeyboardTypos(0)


def test_encodings_leet_homoglyphs_rewrites() -> None:
    rng = random.Random(0)
    encoded = Encoding("base64").transform("Fee?", rng).rsplit(" ", 1)[1]
    assert base64.b64decode(encoded) == b"Fee?"
    assert Encoding("base16").transform("Fee?", rng).endswith("466565 3F".replace(" ", ""))
    assert Leetspeak(1.0).transform("leet", rng) == "1337"
    glyphs = Homoglyphs(1.0).transform("Pay", rng)
    assert glyphs != "Pay" and all(ord(ch) > 127 for ch in glyphs[:2])
    assert Contractions().transform("I do not know what is it", rng) == "I don't know what's it"
    assert "u" in Colloquial().transform("Can you help?", rng).split()


def test_unchanged_text_gives_no_child() -> None:
    case = TestCase(id="x", question="12345")
    assert perturb([case], [Casing("upper"), Contractions()]) == []
    assert perturb([TestCase(id="y")], [KeyboardTypos()]) == []  # no question


def test_distractors_into_given_context_or_injected() -> None:
    cases = [parent(), OTHER]
    children = perturb(cases, [Distractors("misleading", n=1, position="first")], seed=1)
    child = next(c for c in children if c.parent_id == "q1")
    inserted = child.metadata["perturbation"]["inserted"]
    assert len(inserted) == 1 and inserted[0] in OTHER.retrieved_context[0]
    assert child.retrieved_context == [inserted[0], *CONTEXT]
    assert child.context_ids == ["distractor-0", "fees-1", "fees-2"]
    assert child.metadata["fixed_context"] is True
    contra = perturb([parent()], [Distractors("contradictory", n=2)], seed=1)[0]
    new = [s for s in contra.retrieved_context or [] if s not in CONTEXT]
    assert len(new) == 2 and all(s not in CONTEXT for s in new)
    assert any("12 euros" not in s and "fee" in s for s in new)
    bare = parent(retrieved_context=None, context_ids=None)
    injected = perturb([bare], [Distractors("contradictory")], seed=1)[0]
    assert injected.retrieved_context is None
    assert injected.metadata["injected_context"] == injected.metadata["perturbation"]["inserted"]


def test_ood_copies_and_counterfactuals() -> None:
    [ood] = perturb([parent()], [OutOfDistribution()])
    assert ood.expected_answer is None and ood.relevant_ids is None
    assert ood.labels["expected_behaviour"] == "abstain" and ood.topic == "fees"
    copies = perturb([parent()], [Copies(3)])
    assert [c.id for c in copies] == ["q1~copy-1", "q1~copy-2", "q1~copy-3"]
    assert {c.question for c in copies} == {parent().question}
    swap = perturb(
        [parent(question="Can my husband open an account for his son?")],
        [DemographicCounterfactual("gender")],
    )
    assert [c.question for c in swap] == ["Can my wife open an account for her daughter?"]
    assert swap[0].id == "q1~counterfactual-gender-swap"
    ages = perturb(
        [parent(question="Can elderly customers get a loan?")],
        [DemographicCounterfactual("age", mode="swap")],
    )
    assert [c.question for c in ages] == [
        "Can young customers get a loan?",
        "Can middle-aged customers get a loan?",
    ]
    personas = perturb([parent()], [DemographicCounterfactual("income")])
    assert len(personas) == 3 and all(c.question.endswith(parent().question) for c in personas)
    assert perturb([parent()], [DemographicCounterfactual("race", mode="swap")]) == []


def test_llm_paraphrase_through_judge_backend_and_failures() -> None:
    seen: list[str] = []

    def judge(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        seen.append(text)
        if "abroad" in text:
            raise TransientBackendError("503 from the judge")
        return "1. How much does the Premier account cost each month?\n2. Premier monthly charge?"

    p = LLMParaphrase(judge, n=2)
    children = perturb([parent(), OTHER], [p])
    assert [c.question for c in children] == [
        "How much does the Premier account cost each month?",
        "Premier monthly charge?",
    ]
    assert [c.id for c in children] == ["q1~paraphrase-1", "q1~paraphrase-2"]
    assert any("abroad" in s for s in seen)  # asked, failed, no child made up


def test_registry_and_cli(tmp_path: Path) -> None:
    assert {"typos", "distractors", "counterfactual", "paraphrase", "ood", "copy"} <= set(
        PERTURBATIONS
    )
    with pytest.raises(InvalidInputError, match="Unknown perturbation"):
        get_perturbation("tpyos")
    suite, out = tmp_path / "s.jsonl", tmp_path / "p.jsonl"
    write_suite([parent(), OTHER], suite)
    result = CliRunner().invoke(
        cli,
        [
            "perturb",
            str(suite),
            "--out",
            str(out),
            "-p",
            "typos:rate=0.2",
            "-p",
            "counterfactual:axis=gender",
            "--seed",
            "5",
        ],
    )
    assert result.exit_code == 0, result.output
    cases = read_suite(out)
    assert [c.id for c in cases[:2]] == ["q1", "q2"] and cases[0].actual_answer is None
    assert {c.id for c in cases if c.parent_id} >= {
        "q1~typos",
        "q2~typos",
        "q1~counterfactual-gender-man",
    }
    again = tmp_path / "p2.jsonl"
    CliRunner().invoke(
        cli,
        [
            "perturb",
            str(suite),
            "--out",
            str(again),
            "-p",
            "typos:rate=0.2",
            "-p",
            "counterfactual:axis=gender",
            "--seed",
            "5",
        ],
    )
    assert again.read_text() == out.read_text()
