"""NLI evaluators: hand-checked values with a table-driven model, plus real tiny models."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from assay.backends.nli import NLIScores, softmax
from assay.backends.nli.fake import FakeNLI
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.nli_contradictions import NLIContradictions
from assay.evaluators.nli_faithfulness import NLIFaithfulness
from assay.evaluators.nli_groundedness import NLIGroundedness
from assay.evaluators.nli_hhem import NLIHallucinationHHEM
from assay.evaluators.nli_summac import NLISummaCConv, NLISummaCZS


class TableNLI:
    """Logits (entailment, neutral, contradiction) looked up by (premise, hypothesis)."""

    labels = ("entailment", "neutral", "contradiction")
    model_id = "table-nli"

    def __init__(self, table: dict[tuple[str, str], Sequence[float]], norm: float = 2.0) -> None:
        self.table = table
        self.norm = norm
        self.calls = 0

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> NLIScores:
        self.calls += 1
        logits = np.array([self.table.get((p, h), (0.0, 0.0, 0.0))
                           for p, h in zip(premises, hypotheses, strict=True)], dtype=float)
        logits = logits.reshape(-1, 3)
        return NLIScores(self.labels, logits, softmax(logits), logits[:, 0] / self.norm,
                         np.zeros(len(logits), bool))


def case(answer: str, context: list[str] | None = None, question: str | None = None) -> TestCase:
    return TestCase(id="c", model="m", actual_answer=answer, retrieved_context=context,
                    question=question)


def sig(x: float) -> float:
    return float(1 / (1 + np.exp(-x)))


def test_groundedness_is_logistic_of_best_distance_per_sentence() -> None:
    table = {("P1.", "A one."): (4.0, 0, 0), ("P2.", "A one."): (-2.0, 0, 0),
             ("P1.", "B two."): (-3.0, 0, 0), ("P2.", "B two."): (-1.0, 0, 0)}
    model = TableNLI(table)
    result = NLIGroundedness(nli=model).evaluate([case("A one. B two.", ["P1.", "P2."])])[0]
    mean, low = result.outcomes["nli_groundedness_mean"].value, result.outcomes[
        "nli_groundedness_min"].value
    assert low == pytest.approx(sig(-1.0 / 2))
    assert mean == pytest.approx((sig(4.0 / 2) + sig(-1.0 / 2)) / 2)
    sentences = result.details["sentences"]
    assert [s["best_chunk"] for s in sentences] == [0, 1]
    assert result.details["flagged"] == [1] and sentences[1]["flagged"]
    assert set(sentences[0]["probs"]) == {"entailment", "neutral", "contradiction"}
    assert model.calls == 1  # one batched model call


def test_groundedness_batches_cases_and_skips_empty_ones() -> None:
    model = FakeNLI()
    evaluator = NLIGroundedness(nli=model)
    results = evaluator.evaluate([
        case("The fee is 12 euros.", ["The monthly fee is 12 euros."]),
        case("The fee is 40 euros and it is never waived.", ["The monthly fee is 12 euros."]),
        case("", ["x"]),
    ])
    good, bad, empty = results
    assert good.outcomes["nli_groundedness_mean"].value > 0.5 > bad.outcomes[
        "nli_groundedness_mean"].value
    assert empty.outcomes["nli_groundedness_mean"].status is Status.SKIPPED


def test_hhem_takes_the_max_over_chunks_and_records_each() -> None:
    table = {("C1.", "Ans."): (0.0, 0, 0), ("C2.", "Ans."): (3.0, 0, 0)}
    result = NLIHallucinationHHEM(nli=TableNLI(table)).evaluate([case("Ans.", ["C1.", "C2."])])[0]
    p2 = softmax(np.array([[3.0, 0, 0]]))[0, 0]
    assert result.outcomes["nli_hhem_consistency"].value == pytest.approx(p2)
    assert result.details["best_chunk"] == 1 and len(result.details["chunk_scores"]) == 2
    assert result.details["hallucination_score"] == pytest.approx(1 - p2, abs=1e-4)


def test_faithfulness_counts_claims_above_tau_strictly() -> None:
    # P(entailment) of softmax([x, 0, 0]) = 0.5 exactly when x = ln 2
    table = {("C.", "One."): (np.log(2.0), 0, 0), ("C.", "Two."): (5.0, 0, 0),
             ("C.", "Three."): (-5.0, 0, 0)}
    evaluator = NLIFaithfulness(nli=TableNLI(table), tau=0.5)
    result = evaluator.evaluate([case("One. Two. Three.", ["C."])])[0]
    assert result.outcomes["nli_faithfulness"].value == pytest.approx(1 / 3)
    assert result.outcomes["nli_hallucination_rate"].value == pytest.approx(2 / 3)
    assert [c["supported"] for c in result.details["claims"]] == [False, True, False]


def test_contradictions_checks_both_directions() -> None:
    table = {("It is open.", "It is closed."): (0, 0, 0.0),
             ("It is closed.", "It is open."): (0, 0, 4.0)}
    evaluator = NLIContradictions(nli=TableNLI(table), threshold=0.5)
    result, single = evaluator.evaluate([case("It is open. It is closed."), case("Just one.")])
    p = softmax(np.array([[0, 0, 4.0]]))[0, 2]
    assert result.outcomes["nli_contradiction_score"].value == pytest.approx(p)
    assert result.outcomes["nli_has_contradictions"].value == 1.0
    top = result.details["top_pairs"][0]
    assert (top["premise"], top["hypothesis"]) == (1, 0)
    assert single.outcomes["nli_contradiction_score"].status is Status.SKIPPED


def test_contradictions_compare_only_sentences_about_the_same_thing() -> None:
    """An NLI model that reads unrelated sentences as contradictory (SNLI's habit) does not flag
    an answer covering two topics: pairs under ``min_similarity`` are not compared."""
    from assay.backends.embed.fake import TableEmbedder

    fee, cards, fee_again = "The fee is 5 euros.", "Cards arrive by post.", "The fee is 9 euros."
    table = {(a, b): (0, 0, 4.0) for a in (fee, cards, fee_again) for b in (fee, cards, fee_again)}
    vectors = TableEmbedder({fee: [1.0, 0.0], fee_again: [0.9, 0.1], cards: [0.0, 1.0]})
    gated = NLIContradictions(nli=TableNLI(table), embedder=vectors)
    topics, clash = gated.evaluate([case(f"{fee} {cards}"), case(f"{fee} {fee_again} {cards}")])
    assert topics.outcomes["nli_contradiction_score"].value == 0.0
    assert topics.details["pairs_compared"] == 0
    assert "same thing" in (topics.explanation or "")
    assert clash.outcomes["nli_has_contradictions"].value == 1.0
    assert clash.details["pairs_compared"] == 2 and clash.details[
        "pairs_about_different_things"] == 4
    every = NLIContradictions(nli=TableNLI(table), embedder=vectors, min_similarity=0.0)
    assert every.evaluate([case(f"{fee} {cards}")])[0].outcomes[
        "nli_has_contradictions"].value == 1.0
    with pytest.raises(InvalidInputError, match="min_similarity"):
        NLIContradictions(min_similarity=2.0)


def test_summac_zs_is_mean_of_max_entailment_minus_contradiction() -> None:
    doc = "D one. D two."
    table = {("D one.", "S one."): (2.0, 0, 0), ("D two.", "S one."): (0, 0, 2.0),
             ("D one.", "S two."): (0, 0, 1.0), ("D two.", "S two."): (0, 1.0, 0)}
    result = NLISummaCZS(nli=TableNLI(table)).evaluate([case("S one. S two.", [doc])])[0]
    from_question = NLISummaCZS(nli=TableNLI(table), source="question").evaluate(
        [case("S one. S two.", question=doc)])[0]
    assert from_question.outcomes == result.outcomes

    def margin(logits: list[float]) -> float:
        p = softmax(np.array([logits]))[0]
        return float(p[0] - p[2])

    s1 = max(margin([2.0, 0, 0]), margin([0, 0, 2.0]))
    s2 = max(margin([0, 0, 1.0]), margin([0, 1.0, 0]))
    assert result.outcomes["nli_summac_zs"].value == pytest.approx((s1 + s2) / 2)
    assert result.details["best_document_sentence"] == [0, 1]


def test_summac_conv_reads_npz_and_torch_weights_alike(tmp_path) -> None:
    from assay.backends.nli.summac_conv import ConvWeights, bin_edges, conv_score, load_weights

    rng = np.random.default_rng(0)
    arrays = {"mlp.weight": rng.normal(size=(1, 5)), "mlp.bias": rng.normal(size=1),
              "layer_final.weight": rng.normal(size=(2, 3)),
              "layer_final.bias": rng.normal(size=2)}
    np.savez(tmp_path / "w.npz", **arrays)
    image = rng.uniform(size=(4, 3))
    value = conv_score(image, load_weights(str(tmp_path / "w.npz")), bin_edges("even5"))
    # by hand: histogram per summary sentence, linear, mean, 3 -> 2 layer, softmax[1]
    rows = [np.histogram(image[:, j], bins=np.linspace(0, 1, 6))[0] for j in range(3)]
    mean = np.mean([r @ arrays["mlp.weight"][0] + arrays["mlp.bias"][0] for r in rows])
    logits = arrays["layer_final.weight"] @ np.full(3, mean) + arrays["layer_final.bias"]
    assert value == pytest.approx(float(np.exp(logits[1]) / np.exp(logits).sum()))
    torch = pytest.importorskip("torch")
    torch.save({k: torch.tensor(v) for k, v in arrays.items()}, tmp_path / "w.bin")
    again = conv_score(image, load_weights(str(tmp_path / "w.bin")), bin_edges("even5"))
    assert again == pytest.approx(value)
    with pytest.raises(Exception, match="bins"):
        conv_score(image, ConvWeights(*arrays.values()), bin_edges("even7"))


def test_summac_conv_without_weights_errors_with_instructions() -> None:
    result = NLISummaCConv(nli=FakeNLI()).evaluate([case("S.", ["D."])])[0]
    outcome = result.outcomes["nli_summac_conv"]
    assert outcome.status is Status.ERROR and "weights" in (outcome.reason or "")


@pytest.mark.parametrize("spec", ["tiny"])
def test_every_nli_evaluator_runs_on_a_real_tiny_model(spec: str) -> None:
    pytest.importorskip("transformers")
    from assay.backends.tiny_models import summac_conv_weights

    cases = [case("The fee is 12 euros. It is waived above 5,000 euros.",
                  ["The monthly fee is 12 euros.", "It is waived when the balance is high."],
                  question="The monthly fee is 12 euros. It is waived when the balance is high.")]
    evaluators = [NLIGroundedness(spec), NLIHallucinationHHEM("tiny-hhem"), NLIFaithfulness(spec),
                  NLIContradictions(spec), NLISummaCZS(spec),
                  NLISummaCConv(spec, weights=str(summac_conv_weights(n_bins=23)))]
    for evaluator in evaluators:
        result = evaluator.evaluate(cases)[0]
        for name, outcome in result.outcomes.items():
            assert outcome.status is Status.OK, (name, outcome.reason)
        assert "@sha256:" in result.details["model"]


def test_contradictions_read_conflicting_figures_the_model_misses() -> None:
    """The same statement with two fees: the NLI model sees nothing (logits 0), the figure rule
    scores 1 and names both figures; ``figures=False`` leaves it to the model."""
    answer = "The monthly fee is 5 euros. Cards arrive by post. The monthly fee is 9 euros."
    nli = TableNLI({})
    ruled = NLIContradictions(nli, min_similarity=0).evaluate([case(answer)])[0]
    assert ruled.outcomes["nli_contradiction_score"].value == 1.0
    assert ruled.outcomes["nli_has_contradictions"].value == 1.0
    assert ruled.details["figure_conflicts"] == [{"first": 0, "second": 2, "figures": ["5", "9"]}]
    assert "conflicting figures ('5' vs '9')" in (ruled.explanation or "")
    model_only = NLIContradictions(nli, min_similarity=0, figures=False).evaluate([case(answer)])[0]
    assert model_only.outcomes["nli_contradiction_score"].value == pytest.approx(1 / 3)
    assert "figure_conflicts" not in model_only.details
    same = NLIContradictions(nli, min_similarity=0).evaluate(
        [case("The monthly fee is 5 euros. The monthly fee is five euros.")])[0]
    assert same.outcomes["nli_contradiction_score"].value == pytest.approx(1 / 3)


def test_contradictions_compare_claims_not_questions() -> None:
    """A question asserts nothing: the model's contradiction between it and a claim is not read
    by default, and an answer left with one claim is skipped with the reason."""
    claim, other, question = "The fee is 9 euros.", "Cards are free.", "Is the fee 5 euros?"
    nli = TableNLI({(question, claim): (0.0, 0.0, 6.0), (claim, question): (0.0, 0.0, 6.0)})
    answer = f"{claim} {other} {question}"
    claims = NLIContradictions(nli, min_similarity=0).evaluate([case(answer)])[0]
    every = NLIContradictions(nli, min_similarity=0, sentences="all").evaluate([case(answer)])[0]
    assert claims.outcomes["nli_contradiction_score"].value == pytest.approx(1 / 3)
    assert claims.details["set_aside"] == [{"sentence": question, "kind": "question"}]
    assert every.outcomes["nli_contradiction_score"].value > 0.99  # type: ignore[operator]
    lone = NLIContradictions(nli, min_similarity=0).evaluate([case(f"{claim} {question}")])[0]
    assert lone.outcomes["nli_contradiction_score"].status is Status.SKIPPED
    assert lone.outcomes["nli_contradiction_score"].reason == (
        "the answer has fewer than two distinct claims (1 question not scored as claims)")
