"""assay.text.facts: the shipped antonym list (WordNet-derived, with its licence notice) and the
antonym check that the NLI head and hallucination_score share."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from assay.text.facts import (
    antonyms,
    context_keys,
    contradicted_by_antonym,
    extract_facts,
    fact_supported,
)
from assay.text.porter import porter_stem

ROOT = Path(__file__).resolve().parents[2]
WORDNET = Path("/usr/share/wordnet")


def test_the_antonym_list_carries_wordnet_s_notice_and_is_symmetric() -> None:
    text = files("assay.text").joinpath("data/antonyms.tsv").read_text("utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in text
    pairs = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert len(pairs) > 2000 and all(len(p) == 2 and p[0] < p[1] for p in pairs)
    for a, b in pairs[:200]:
        assert b in antonyms(a) and a in antonyms(b)


@pytest.mark.parametrize(("context", "claim", "flagged"), [
    ("Revenue increased in 2023.", "Revenue decreased in 2023.", ["decreased"]),
    ("The minimum deposit is 10 euros.", "The maximum deposit is 10 euros.", ["maximum"]),
    ("The team won the final.", "The team lost the final.", ["lost"]),
    ("Revenue increased and costs decreased.", "Revenue decreased.", []),  # the word is there
])
def test_a_word_is_contradicted_only_when_the_context_uses_its_antonym_instead(
    context: str, claim: str, flagged: list[str]
) -> None:
    keys = context_keys([context])
    assert [f.text for f in extract_facts(claim) if contradicted_by_antonym(f, keys)] == flagged
    assert porter_stem("increased") in antonyms(porter_stem("decreased"))


@pytest.mark.skipif(not (WORDNET / "data.adj").is_file(),
                    reason="WordNet 3.0 data not installed (apt-get install wordnet-base)")
def test_the_shipped_list_is_what_the_build_script_writes(tmp_path: Path) -> None:
    out = tmp_path / "antonyms.tsv"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_antonyms.py"), "--out",
                    str(out)], check=True, capture_output=True, timeout=300)
    assert out.read_bytes() == files("assay.text").joinpath("data/antonyms.tsv").read_bytes()


@pytest.mark.parametrize(("sentence", "figure"), [
    ("You can make only one withdrawal a year.", True),
    ("It is a one-year fixed rate.", True),
    ("The fee is charged for one month.", True),
    ("There is a monthly fee of 6 euros for having one in place.", False),
    ("Interest is charged from day one.", False),
    ("This one costs 5 euros.", False),
    ("No one from the bank will ask for it.", False),
    ("The only one that qualifies is the Student account.", False),
])
def test_one_is_a_figure_only_when_it_counts_something(sentence: str, figure: bool) -> None:
    assert any(f.key == "num:1" for f in extract_facts(sentence)) is figure


@pytest.mark.parametrize(("context", "answer", "unsupported"), [
    ("Send it by 31/03/2026.", "Send it by 31 March 2026.", set()),
    ("Send it by 31 March 2026.", "Send it by 31/03/2026.", set()),
    ("Send it by 31 March 2026.", "Send it by 31/04/2026.", {"04"}),
    ("Send it by 03/04/2026.", "Send it by 4 March 2026.", set()),  # either reading
    ("The limit is 1,500,000 euros.", "The limit is 1.5 million euros.", set()),
    ("The limit is 1.5 million euros.", "The limit is 1,500,000 euros.", set()),
    ("The limit is 1.5 million euros.", "The limit is 2 million euros.", {"2"}),
    ("The first payment is due in May.", "The 1st payment is due in May.", set()),
    ("The 1st payment is due in May.", "The 2nd payment is due in May.", {"2"}),
])
def test_a_figure_written_another_way_is_still_supported(
        context: str, answer: str, unsupported: set[str]) -> None:
    """Dates with or without month names, scale words and ordinals: the same figure in another
    format is stated; a different one is not (design note 0053)."""
    keys = context_keys([context])
    found = {f.text for f in extract_facts(answer)
             if f.kind in ("number", "date") and not fact_supported(f, keys)}
    assert found == unsupported


@pytest.mark.parametrize(("sentence", "dates"), [
    ("You may be charged a fee.", set()),
    ("May I see your card?", set()),
    ("The fee rises in May.", {"May"}),
    ("It is due on may 5.", {"may"}),
    ("Protesters may march in March.", {"March"}),
])
def test_a_month_name_is_a_date_only_when_written_as_one(sentence: str, dates: set[str]) -> None:
    assert {f.text for f in extract_facts(sentence) if f.kind == "date"} == dates


def test_a_compound_number_word_is_one_figure() -> None:
    facts = extract_facts("There were twenty-five machines and thirty people.")
    assert [(f.text, f.key) for f in facts if f.kind == "number"] == [
        ("twenty-five", "num:25"), ("thirty", "num:30")]
    assert "num:25" in context_keys(["Twenty five machines were used."])


@pytest.mark.parametrize(("context", "answer"), [
    ("Samantha opened the account.", "It was Samantha's account."),
    ("It was Samantha's account.", "Samantha opened it."),
])
def test_a_possessive_name_is_the_name(context: str, answer: str) -> None:
    keys = context_keys([context])
    assert all(fact_supported(f, keys) for f in extract_facts(answer) if f.kind == "name")


@pytest.mark.parametrize(("context", "answer", "unsupported"), [
    ("Cases of SARS-CoV-2 rose.", "Cases of SARS-CoV-4 rose.", {"SARS-CoV-4"}),
    ("Cases of SARS-CoV-2 rose.", "Cases of SARS-CoV-2 rose.", set()),
    ("Cases of COVID-19 rose.", "Covid19 cases rose.", set()),
    ("Send form W-8BEN.", "Send form W-9.", {"W-9"}),
    ("PSD2 applies to SARS-CoV-2 notices.", "SARS was named in PSD2.", set()),
    ("Rates fell in 2020.", "Rates fell pre-2020.", set()),
    ("Talks between the U.K. and Russia stalled.", "Talks with the U.S. stalled.", {"U.S."}),
    ("Talks between the U.K. and Russia stalled.", "The UK's talks stalled.", set()),
])
def test_a_code_is_one_name(context: str, answer: str, unsupported: set[str]) -> None:
    """A code with a digit is one fact: "SARS-CoV-4" is not supported by the parts of
    "SARS-CoV-2"; a context's code still supports its parts; "pre-2020" is no code. Capitals
    with dots are one name ("U.S." was two one-letter tokens, no fact at all)."""
    keys = context_keys([context])
    assert {f.text for f in extract_facts(answer)
            if f.kind != "word" and not fact_supported(f, keys)} == unsupported


def test_an_ordinal_suffix_is_part_of_its_figure() -> None:
    assert [(f.text, f.kind) for f in extract_facts("Before your 75th birthday.")] == [
        ("75", "number"), ("birthday", "word")]


@pytest.mark.parametrize(("context", "answer", "unsupported"), [
    ("The fee is €50 a year.", "The fee is 50 euros a year.", set()),
    ("The fee is €50 a year.", "The fee is EUR 50 a year.", set()),
    ("The fee is 50 euros a year.", "The fee is EUR 50 a year.", set()),
    ("Withdrawals are limited to £300 a day.", "Up to 300 pounds a day.", set()),
    ("Withdrawals are limited to $300 a day.", "Up to 300 dollars or USD a day.", set()),
    ("The rate is 2.5% a year.", "The rate is 2.5 per cent.", set()),
    ("The rate is 2.5 percent.", "The rate is 2.5 pct.", set()),
    ("The fee is €50 a year.", "The fee is 50 pounds a year.", {"pounds"}),
    ("The rate is 2.5 a year.", "The rate is 2.5 per cent.", {"cent"}),
    ("The fee is £50 a year.", "The fee is €50 a year.", {"€"}),
    ("The fee is 50 euros a year.", "The fee is €50 a year.", set()),
    ("The fee is EUR 50 a year.", "The fee is €50 a year.", set()),
    ("The fee is 50 a year.", "The fee is $50 a year.", {"$"}),
])
def test_a_sign_supports_the_words_for_it(context: str, answer: str,
                                          unsupported: set[str]) -> None:
    """A currency or percent sign in the context supports the words and codes for it; another
    currency stays unsupported, also when the answer writes it as a sign."""
    keys = context_keys([context])
    assert {f.text for f in extract_facts(answer) if not fact_supported(f, keys)} == unsupported


@pytest.mark.parametrize(("context", "answer", "unsupported"), [
    ("The branch opens at 9:30 on weekdays.", "It opens at 9.30 am.", set()),
    ("The branch opens at 9.30 am on weekdays.", "It opens at 9:30.", set()),
    ("The branch opens at 9:30 on weekdays.", "It opens at 10:30.", {"10"}),
    ("The branch opens at 9:30 on weekdays.", "It opens at 10.30 am.", {"10.30"}),
    ("The fee is 9.30 euros.", "The fee is 30 euros.", {"30"}),  # a price, not a time
    ("The fee is 9.30 a month.", "The fee is 30 a month.", {"30"}),
    ("We close at 5.30 p.m. on Fridays.", "We close at 5:30 on Fridays.", set()),
])
def test_a_clock_time_is_supported_in_either_writing(context: str, answer: str,
                                                     unsupported: set[str]) -> None:
    keys = context_keys([context])
    assert {f.text for f in extract_facts(answer)
            if f.kind == "number" and not fact_supported(f, keys)} == unsupported


def test_a_leading_dot_decimal_is_the_same_figure_as_with_its_zero() -> None:
    """".5%" states 0.5 (it was read as 5, so "0.5%" in the context did not support it), while a
    dot after a word is no decimal point ("No.5" is 5)."""
    keys = context_keys(["The fee is 0.5% of the balance, item No. 5."])
    facts = {f.text: fact_supported(f, keys) for f in extract_facts("A .5% fee on item No.5.")
             if f.kind == "number"}
    assert facts == {".5": True, "5": True}
    assert not any(fact_supported(f, keys) for f in extract_facts("A .25% fee.") if f.kind == "number")


@pytest.mark.parametrize(
    ("context", "answer", "supported"),
    [
        ("Refunds take 14 days.", "Refunds take two weeks.", True),
        ("Refunds take two weeks.", "Refunds take 14 days.", True),
        ("Refunds take 14 days.", "Refunds take 2 days.", False),  # a changed figure stays one
        ("Refunds take 14 days.", "Refunds take 2 months.", False),
        ("The term is a year.", "The term is 12 months.", True),
        ("A two-week window.", "A 14-day window.", True),
        ("Wait a day.", "Wait 24 hours.", True),
        ("In three weeks.", "In twenty-one days.", True),
        ("The term is 30 days.", "The term is one month.", False),  # a month is no fixed length
        ("We have 14 branches.", "We have two weeks.", False),  # 14 of something else
    ],
)
def test_a_duration_is_supported_in_another_unit(context: str, answer: str, supported: bool) -> None:
    """A figure before a unit of time is supported by the same duration in another unit; the
    figure alone (another duration, or the same number of something else) is not."""
    keys = context_keys([context])
    figures = [f for f in extract_facts(answer) if f.kind == "number"]
    assert len(figures) == 1
    assert fact_supported(figures[0], keys) is supported
