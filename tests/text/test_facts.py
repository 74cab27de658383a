"""assay.text.facts: the shipped antonym list (WordNet-derived, with its licence notice) and the
antonym check that the NLI head and hallucination_score share."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from assay.text.facts import antonyms, context_keys, contradicted_by_antonym, extract_facts
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
