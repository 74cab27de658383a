"""Query types and the TREC coarse answer classes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.generate.taxonomy import (
    DEFAULT_TAXONOMY,
    TREC_CLASSES,
    QueryType,
    load_taxonomy,
    resolve_types,
    trec_class,
    trec_counts,
)

# Hand-labelled with the Li & Roth (2002) coarse-class definitions (several are TREC-style
# questions, the rest of the kind the generator writes).
LABELLED = [
    ("What does NASA stand for?", "ABBR"),
    ("What is the abbreviation for the annual percentage rate?", "ABBR"),
    ("What is the acronym for the European payments area?", "ABBR"),
    ("How many contactless payments can be made before the PIN is asked?", "NUM"),
    ("How much does a replacement card cost?", "NUM"),
    ("When does the fixed period end?", "NUM"),
    ("What is the maximum loan term?", "NUM"),
    ("What percentage of the salary does the employer add?", "NUM"),
    ("How long does a replacement card take to arrive?", "NUM"),
    ("What year was the bank founded?", "NUM"),
    ("Who can open a business account?", "HUM"),
    ("Which customers must declare their medical conditions?", "HUM"),
    ("What company provides the travel insurance?", "HUM"),
    ("Who was the first president of the United States?", "HUM"),
    ("Where can I report a lost card?", "LOC"),
    ("Which country has the lowest fees?", "LOC"),
    ("What city is the head office in?", "LOC"),
    ("Why is the Premier fee never waived?", "DESC"),
    ("How do I switch from Everyday to Premier?", "DESC"),
    ("What is a chargeback?", "DESC"),
    ("What does overdraft mean?", "DESC"),
    ("What happens after the fixed period ends?", "DESC"),
    ("Is the replacement card free the first time?", "DESC"),
    ("Describe the complaints procedure.", "DESC"),
    ("Which account includes travel insurance?", "ENTY"),
    ("What kind of mortgage do you offer?", "ENTY"),
    ("Which documents are needed to open an account?", "ENTY"),
    ("What sport needs extra cover?", "ENTY"),
    ("According to the policy, how many days does a refund take?", "NUM"),
]


@pytest.mark.parametrize(("question", "expected"), LABELLED)
def test_trec_class(question: str, expected: str) -> None:
    assert trec_class(question) == expected


def test_trec_counts_list_every_class() -> None:
    counts = trec_counts([q for q, _ in LABELLED])
    assert list(counts) == list(TREC_CLASSES) and sum(counts.values()) == len(LABELLED)


def test_resolve_types() -> None:
    assert [t.name for t in resolve_types(None)] == list(DEFAULT_TAXONOMY)
    names = [t.name for t in resolve_types(["trec", "factual", "trec_num"])]
    assert names == ["trec_abbr", "trec_enty", "trec_desc", "trec_hum", "trec_loc", "trec_num",
                     "factual"]
    with pytest.raises(InvalidInputError, match="unknown query type 'essay'"):
        resolve_types(["essay"])
    custom = {"how_to": QueryType("how_to", "a how-to question")}
    assert [t.name for t in resolve_types(None, custom)] == ["how_to"]
    assert [t.name for t in resolve_types(["how_to", "yes_no"], custom)] == ["how_to", "yes_no"]


def test_load_taxonomy(tmp_path: Path) -> None:
    file = tmp_path / "t.json"
    file.write_text(json.dumps({"compare": {"instruction": "compare two products",
                                            "n_chunks": 2}}), encoding="utf-8")
    assert load_taxonomy(file)["compare"].n_chunks == 2
    file.write_text(json.dumps([{"name": "x"}]), encoding="utf-8")
    with pytest.raises(InvalidInputError, match="row 1: needs 'name' and 'instruction'"):
        load_taxonomy(file)
    file.write_text(json.dumps([{"name": "x", "instruction": "i", "answer_format": "essay"}]),
                    encoding="utf-8")
    with pytest.raises(InvalidInputError, match="answer_format"):
        load_taxonomy(file)
    file.write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"t\.json"):
        load_taxonomy(file)
    with pytest.raises(InvalidInputError, match="snake_case"):
        QueryType("Bad Name", "x")
