"""ROUGE: bit-for-bit parity with rouge-score, the Porter port against nltk, the LCS kernel."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lexical_pairs import answer_pairs

from assay import TestCase
from assay.evaluators import get_evaluator
from assay.evaluators.lexical_rouge import lcs_length, rouge, rouge_tokens
from assay.text.porter import porter_stem

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

TYPES = ["rouge1", "rouge2", "rougeL"]


def _dp_lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1
                if a[i - 1] == b[j - 1]
                else max(table[i - 1][j], table[i][j - 1])
            )
    return table[-1][-1]


@given(
    st.lists(st.sampled_from("abcde"), max_size=90),
    st.lists(st.sampled_from("abcdef"), max_size=90),
)
@settings(max_examples=150, deadline=None)
def test_bit_parallel_lcs_equals_dynamic_programming(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == _dp_lcs(a, b) == lcs_length(b, a)


def test_lcs_beyond_one_machine_word() -> None:
    rng = random.Random(3)
    a = [rng.choice("abcdefgh") for _ in range(300)]
    b = [rng.choice("abcdefgh") for _ in range(250)]
    assert lcs_length(a, b) == _dp_lcs(a, b)


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_identical_to_rouge_score(use_stemmer: bool) -> None:
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    for expected, actual in answer_pairs(600, seed=use_stemmer):
        reference = scorer.score(expected, actual)
        mine = rouge(expected, actual, TYPES, use_stemmer=use_stemmer)
        for kind in TYPES:
            assert tuple(mine[kind]) == tuple(reference[kind]), (kind, expected, actual)


def test_rouge_tokens_identical_to_rouge_score_tokenizer() -> None:
    from rouge_score.tokenizers import DefaultTokenizer

    texts = [a for pair in answer_pairs(300, seed=5) for a in pair]
    texts += ["It's 3.5%-ish, naïve café", "running ran runs\tRUNNER\n", "   ", "ab abc abcd"]
    for stem in (False, True):
        tokenizer = DefaultTokenizer(use_stemmer=stem)
        for text in texts:
            assert list(rouge_tokens(text, stem)) == tokenizer.tokenize(text), text


def test_porter_port_equals_nltk_word_for_word(shared_data_words: set[str]) -> None:
    from nltk.stem.porter import PorterStemmer

    nltk_stem = PorterStemmer().stem
    rng = random.Random(0)
    suffixes = [
        "ing",
        "ed",
        "s",
        "ies",
        "ational",
        "tional",
        "ness",
        "ful",
        "alli",
        "logi",
        "bli",
        "eed",
        "ied",
        "ly",
        "ation",
        "izer",
        "ement",
        "ll",
        "e",
        "y",
        "fulli",
        "iviti",
        "biliti",
        "ousli",
        "alism",
        "icate",
        "ative",
        "ible",
        "ance",
        "ize",
    ]
    stems = [
        "run",
        "hop",
        "fee",
        "charg",
        "generaliz",
        "sky",
        "cry",
        "agre",
        "fil",
        "tap",
        "conditional",
        "valenc",
        "hesit",
        "digit",
        "formal",
        "sensitiv",
        "electric",
    ]
    words = set(shared_data_words)
    words |= {s + x for s in stems for x in suffixes}
    words |= {
        "".join(rng.choice("aeiouybcdlmnrstwxz") for _ in range(rng.randint(1, 10)))
        for _ in range(8000)
    }
    words |= {"dying", "lying", "tying", "skies", "news", "innings", "proceed", "succeeding"}
    mismatches = [w for w in words if porter_stem(w) != nltk_stem(w)]
    assert not mismatches, mismatches[:20]


@pytest.fixture(scope="module")
def shared_data_words() -> set[str]:
    """Real English vocabulary from the shared validation data when present (else empty)."""
    folder = Path(__file__).resolve().parents[3] / "shared" / "data" / "faithfulness" / "summedits"
    words: set[str] = set()
    for path in sorted(folder.glob("*.json"))[:3] if folder.is_dir() else []:
        words.update(re.findall(r"[a-z0-9]+", path.read_text(encoding="utf-8").lower()))
    return words


def test_rouge_parity_on_real_summaries(shared_data) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    paths = sorted((shared_data / "faithfulness" / "summedits").glob("*.json"))
    frame = pd.read_json(paths[0])
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    for doc, summary in list(
        zip(frame["doc"].astype(str), frame["summary"].astype(str), strict=True)
    )[:80]:
        reference = scorer.score(summary, doc[:1500])
        mine = rouge(summary, doc[:1500], TYPES, use_stemmer=True)
        assert all(tuple(mine[k]) == tuple(reference[k]) for k in TYPES)


def test_evaluator_reports_rouge_score_values() -> None:
    expected, actual = (
        "The fee is waived above 5,000 euros.",
        "Fees are waived when above 5,000 EUR.",
    )
    reference = rouge_scorer.RougeScorer(TYPES, use_stemmer=True).score(expected, actual)
    [result] = get_evaluator("rouge", use_stemmer=True).evaluate(
        [TestCase(id="1", expected_answer=expected, actual_answer=actual)]
    )
    for kind in TYPES:
        assert result.outcomes[f"{kind}_f1"].value == reference[kind].fmeasure
        assert result.outcomes[f"{kind}_precision"].value == reference[kind].precision
        assert result.outcomes[f"{kind}_recall"].value == reference[kind].recall
    assert "ROUGE-L" in (result.explanation or "")


def test_stemming_changes_scores_and_empty_texts_score_zero() -> None:
    plain = rouge("charges applied", "charge applies", ["rouge1"])["rouge1"].fmeasure
    stemmed = rouge("charges applied", "charge applies", ["rouge1"], use_stemmer=True)[
        "rouge1"
    ].fmeasure
    assert plain == 0.0 and stemmed == 1.0
    assert tuple(rouge("", "text", ["rougeL"])["rougeL"]) == (0, 0, 0)


def test_invalid_parameter_is_rejected() -> None:
    from assay.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="use_stemmer"):
        get_evaluator("rouge", use_stemmer="yes")


@pytest.mark.parametrize("beta", [1.0, 1.2])
def test_rouge_lsum_identical_to_rouge_score_on_one_and_several_lines(beta: float) -> None:
    """One line each takes the ROUGE-L shortcut, several lines the summary-level LCS: both
    equal rouge-score's rougeLsum (beta 1) and the full summary-level computation (any beta)."""
    from assay.evaluators.lexical_rouge_lsum import summary_lcs

    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    pairs = answer_pairs(300, seed=11)
    rng = random.Random(2)
    lined = [(e.replace(". ", ".\n"), a.replace(", ", ",\n") if rng.random() < 0.5 else a)
             for e, a in pairs[:150]]
    for expected, actual in pairs + lined + [("a a b", "a b b a"), ("", "x"), ("x\n", "\nx")]:
        mine = rouge(expected, actual, ["rougeLsum"], use_stemmer=True, beta=beta)["rougeLsum"]
        if beta == 1.0:
            assert tuple(mine) == tuple(scorer.score(expected, actual)["rougeLsum"])
        lines = [[rouge_tokens(x, True, False) for x in t.split("\n") if x]
                 for t in (expected, actual)]
        hits, m, n = summary_lcs(*lines)
        if m and n:
            assert (mine.precision, mine.recall) == (hits / n, hits / m)
        else:
            assert tuple(mine) == (0, 0, 0)
