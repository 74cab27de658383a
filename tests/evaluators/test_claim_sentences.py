"""The ``sentences`` parameter: questions and courtesy formulas are set aside, never silently."""

from __future__ import annotations

import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.backends.nli.fake import FakeNLI
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.embedding_groundedness import EmbGroundedness
from assay.evaluators.hallucination import HallucinationScore
from assay.evaluators.nli_faithfulness import NLIFaithfulness
from assay.evaluators.nli_groundedness import NLIGroundedness
from assay.evaluators.unsupported_facts import UnsupportedFacts

CONTEXT = ["The monthly maintenance fee is 5 euros. It is waived for customers aged 18 to 25."]
CLAIM = "The monthly maintenance fee is 5 euros."
CLOSING = "Is there anything else I can help you with?"
GREETING = "Thank you for your question!"


def case(answer: str, id: str = "c") -> TestCase:
    return TestCase(id=id, actual_answer=answer, retrieved_context=CONTEXT)


def test_a_courtesy_line_does_not_make_a_faithful_answer_a_hallucination() -> None:
    """The shipped head: before the rule, the polite answer scored 0.71, above a changed number
    (0.50); now it scores as the bare claim, and the set-aside lines are named."""
    bare, polite, changed = HallucinationScore().evaluate([
        case(CLAIM, "bare"), case(f"{GREETING} {CLAIM} {CLOSING}", "polite"),
        case(CLAIM.replace("5", "9"), "changed")])
    score = [r.outcomes["hallucination_score"].value for r in (bare, polite, changed)]
    assert score[1] == pytest.approx(score[0])
    assert score[2] > score[1] + 0.1  # type: ignore[operator]
    assert polite.details["set_aside"] == [{"sentence": GREETING, "kind": "courtesy"},
                                           {"sentence": CLOSING, "kind": "question"}]
    assert "not scored as claims: 1 question, 1 courtesy formula" in (polite.explanation or "")
    assert "set_aside" not in bare.details


def test_sentences_all_scores_every_sentence() -> None:
    polite = HallucinationScore(sentences="all").evaluate([case(f"{CLAIM} {CLOSING}")])[0]
    assert polite.outcomes["hallucination_score"].value > 0.5
    assert CLOSING in (polite.explanation or "")


def test_an_answer_without_claims_is_skipped_with_the_reason_never_passed() -> None:
    for evaluator in (HallucinationScore(), UnsupportedFacts(),
                      NLIGroundedness(FakeNLI(), sentences="claims"),
                      EmbGroundedness(FakeEmbedder(), sentences="claims")):
        result = evaluator.evaluate([case(f"Hello! {CLOSING}")])[0]
        assert {o.status for o in result.outcomes.values()} == {Status.SKIPPED}
        reasons = {o.reason for o in result.outcomes.values()}
        assert reasons == {"the answer makes no claim to check: 1 question, 1 courtesy formula"}


@pytest.mark.parametrize("make", [
    lambda mode: NLIGroundedness(FakeNLI(), sentences=mode),
    lambda mode: NLIFaithfulness(FakeNLI(), sentences=mode),
    lambda mode: EmbGroundedness(FakeEmbedder(), sentences=mode),
])
def test_reference_evaluators_score_every_sentence_unless_asked(make) -> None:  # type: ignore[no-untyped-def]
    """HCAT and H2O Sonar score every sentence: that stays the default; "claims" is a parameter."""
    answer = f"{CLAIM} {CLOSING}"
    default = make("all").evaluate([case(answer)])[0]
    claims = make("claims").evaluate([case(answer)])[0]
    primary = next(iter(default.outcomes))
    bare = make("all").evaluate([case(CLAIM)])[0]
    assert claims.outcomes[primary].value == pytest.approx(bare.outcomes[primary].value)
    assert default.outcomes[primary].value != pytest.approx(bare.outcomes[primary].value)
    assert claims.details["set_aside"] == [{"sentence": CLOSING, "kind": "question"}]
    assert "set_aside" not in default.details


def test_an_unknown_mode_is_a_clear_parameter_error() -> None:
    with pytest.raises(InvalidInputError, match="'sentences' parameter of HallucinationScore"):
        HallucinationScore(sentences="statements")


def test_prefetch_encodes_only_the_scored_sentences() -> None:
    claims = NLIGroundedness(sentences="claims").texts_to_encode(case(f"{CLAIM} {CLOSING}"))
    assert CLOSING not in claims and CLAIM in claims


def test_unsupported_facts_reads_only_the_claims_by_default() -> None:
    """A courtesy line's words are not facts the context must hold: facts_support is the bare
    claim's (1.0), where reading every sentence counts 'else', 'help', ... as unsupported."""
    answer = f"{GREETING} {CLAIM} {CLOSING}"
    claims, every = (UnsupportedFacts(sentences=mode).evaluate([case(answer)])[0]
                     for mode in ("claims", "all"))
    assert claims.outcomes["facts_support"].value == 1.0
    assert every.outcomes["facts_support"].value < 0.6  # type: ignore[operator]
    assert [s["kind"] for s in claims.details["set_aside"]] == ["courtesy", "question"]


def test_a_markdown_answer_scores_as_its_plain_claims() -> None:
    """A heading and list markers are layout: before, "## Fees" was the least supported sentence
    and "1." an unsupported number."""
    second = "It is waived for customers aged 18 to 25."
    markdown = f"## Fees\n1. {CLAIM}\n2. **{second}**"
    for evaluator in (HallucinationScore(), UnsupportedFacts()):
        plain, listed = evaluator.evaluate([case(f"{CLAIM} {second}", "plain"),
                                            case(markdown, "listed")])
        primary = next(iter(plain.outcomes))
        assert listed.outcomes[primary].value == pytest.approx(plain.outcomes[primary].value)
        assert listed.details["set_aside"] == [{"sentence": "## Fees", "kind": "heading"}]
