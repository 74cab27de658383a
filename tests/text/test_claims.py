"""Questions and courtesy formulas are not claims; everything that may assert a fact is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.text.claims import (
    COURTESY,
    FRAMING,
    HEADING,
    QUESTION,
    answer_sentences,
    not_a_claim,
    without_particles,
)


@pytest.mark.parametrize("sentence", [
    "Is there anything else I can help you with?",
    "Would you like to open an account?",
    "What else can I do for you today?",
    "Can I help with anything else?)",
])
def test_questions_are_set_aside(sentence: str) -> None:
    assert not_a_claim(sentence) == QUESTION


@pytest.mark.parametrize("sentence", [
    "Hello!", "Hi John,", "Good morning.", "Dear customer,",
    "Thank you for contacting Acme Bank.", "Thanks so much!", "You're welcome.",
    "I hope this helps :)", "Hope this helps!", "Have a nice day \N{SMILING FACE WITH SMILING EYES}",
    "Kind regards, The Acme Team", "I'm sorry for the inconvenience.", "I\u2019m sorry to hear that.",
    "If you have any other questions, please let me know.", "Let me know if you need anything else!",
    "Feel free to reach out if you have more questions.", "I'm happy to help with anything else.",
    "Sure!", "Of course.", "Great question!", "I understand your concern.",
    "Wow!", "That's so cool!", "That sounds fun.",
    "Oh nice!", "Oh wow, cool!", "Ah, got it.", "Haha, awesome!",  # reactions together
    "Okay, thank you!", "Sure, happy to help.",  # a particle before a formula
])
def test_courtesy_formulas_are_set_aside(sentence: str) -> None:
    assert not_a_claim(sentence) == COURTESY


@pytest.mark.parametrize("sentence", [
    "Here are the details:", "Here's what I found.", "Here is a quick summary:", "In summary.",
    "Here's how it works:", "See below.", "Sure, I can tell you about it.", "Let me explain.",
])
def test_framing_lines_are_set_aside(sentence: str) -> None:
    assert not_a_claim(sentence) == FRAMING


@pytest.mark.parametrize("sentence", [
    "Here are the details: the fee is waived for students.",
    "Here are the 3 steps:",
    "Here is the branch you asked about.",
    "The monthly fee is 5 euros.",
    "Did you know that the fee is waived for students?",  # rhetorical: wraps a claim
    "Have you heard that branches close at 4 pm on Fridays?",
    "The fee is waived for students, isn't it?",  # tag question: asserts
    "Thank you for waiting 5 days.",  # a number to check
    "Thanks to the waiver, students pay nothing.",
    "Thank you for asking, but the fee is not waived.",  # a second clause asserts
    "I'm sorry, but your card is blocked.",
    "If you have any questions, the branch is open on Sundays.",
    "Please contact us at the Main Street branch.",
    "Hi, fees apply.",
    "Good morning, the bank opens at nine.",
    "Call us on 0800 123 456 if you have questions.",
    "I love dogs!",  # a personal claim: a knowledge-grounded reply must not invent it
    "Yes.",  # an answer to a yes/no question is a claim
    "No, never.",
    "That's cool, it was released in 1999.",
    "Oh, it opened in 1889.",
    "",
])
def test_sentences_that_may_assert_are_kept(sentence: str) -> None:
    assert not_a_claim(sentence) is None


def test_modes() -> None:
    text = "Hello! The fee is 5 euros. Anything else?"
    assert answer_sentences(text, "all") == (["Hello!", "The fee is 5 euros.", "Anything else?"], [])
    kept, aside = answer_sentences(text, "claims")
    assert kept == ["The fee is 5 euros."]
    assert [(s.sentence, s.kind) for s in aside] == [("Hello!", COURTESY),
                                                     ("Anything else?", QUESTION)]
    assert answer_sentences(None, "claims") == ([], [])


def test_long_untrusted_sentences_match_in_linear_time() -> None:
    """Every pattern is anchored and bounded: a 200,000-character near-miss returns at once."""
    assert not_a_claim("thank you for " + "a" * 200_000 + "!") is None
    assert not_a_claim("hi " + "x " * 100_000) is None


def test_no_summedits_summary_sentence_is_set_aside(shared_data: Path) -> None:
    """On real declarative text the rule sets nothing aside (5,139 summary sentences)."""
    folder = shared_data / "faithfulness" / "summedits"
    rows = [r for p in sorted(folder.glob("*.json")) for r in json.loads(p.read_text())]
    aside = [s for r in rows for s in answer_sentences(r["summary"], "claims")[1]]
    assert rows and aside == []


@pytest.mark.parametrize("sentence", [
    "## Overview", "# Fees", "**Summary**", "__Key points__:", "**Fees:**", "Exemptions:",
    "In short:", "2.", "-",
])
def test_markdown_headings_and_bare_markers_are_set_aside(sentence: str) -> None:
    assert not_a_claim(sentence) == HEADING


def test_claims_are_read_without_list_markers_and_bold() -> None:
    """A numbered list's "1." is layout, not a number the context must hold."""
    answer = "## Fees\n1. The fee is **5 euros**.\n- Cards are free.\n**The fee is waived.**"
    kept, aside = answer_sentences(answer, "claims")
    assert kept == ["The fee is 5 euros.", "Cards are free.", "The fee is waived."]
    assert [(s.sentence, s.kind) for s in aside] == [("## Fees", HEADING)]
    assert answer_sentences("2.5 percent is the rate.", "claims")[0] == ["2.5 percent is the rate."]
    assert answer_sentences(answer, "all")[0][1] == "1. The fee is **5 euros**."


def test_claims_are_read_without_opening_discourse_particles() -> None:
    """"Oh," and "Well," react to the user and state nothing the context can hold. "Yes," and
    "No," answer the user's question, which is a claim ("No" a negation the context must
    share), and stay."""
    answer = "Oh, it opened in 1889. Well, sure, the fee is waived. Yes, it is. No, cards cost 5 euros."
    assert answer_sentences(answer, "claims")[0] == [
        "It opened in 1889.", "The fee is waived.", "Yes, it is.", "No, cards cost 5 euros."]
    assert answer_sentences(answer, "all")[0][0] == "Oh, it opened in 1889."
    long = "Well, " * 100_000 + "the fee"  # untrusted: at most three particles are read
    assert without_particles(long) == long[:1].upper() + long[19:]
