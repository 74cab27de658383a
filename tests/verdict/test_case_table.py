"""The verdict's case table gathered chunk by chunk equals the one made of all cases at once."""

from __future__ import annotations

import pandas as pd

from assay.data import TestCase
from assay.verdict.case_table import AGENT, CONVERSATION, SINGLE, CaseTable
from assay.verdict.implicit import case_key


def _cases() -> list[TestCase]:
    cases = []
    for i in range(40):
        cases.append(TestCase(id=f"q{i}", model="m", question=f"q {i}?"))
        cases.append(TestCase(id=f"q{i}~typo", model="m", parent_id=f"q{i}", perturbation="typo"))
        if i % 5 == 0:
            cases.append(TestCase(id=f"c{i}", model="m", turns=[{"role": "user", "content": "hi"}]))
        if i % 7 == 0:
            cases.append(TestCase(id=f"o{i}", model="n", question="out of scope?",
                                  labels={"expected_behaviour": "abstain"}))
    return cases


def test_a_table_of_chunks_equals_the_table_of_all_cases() -> None:
    keys = [case_key(c) for c in _cases()]
    whole = CaseTable.of(keys)
    chunked = CaseTable()
    for start in range(0, len(keys), 13):
        chunked.add(keys[start : start + 13])
    assert len(chunked) == len(whole) == len(keys)
    assert chunked.models() == whole.models() == ["m", "n"]
    pd.testing.assert_frame_equal(chunked.frame(), whole.frame())
    for kind in (SINGLE, CONVERSATION, AGENT):
        part = chunked.of_kind(kind)
        expected = [k.id for k in keys if k.kind == kind]
        assert len(part) == len(expected)
        assert part.frame()["case_id"].tolist() == expected
    frame = whole.frame()
    assert frame.loc[frame["case_id"] == "q3~typo", "group"].item() == "q3"
    assert frame["abstain"].sum() == 6 and frame["perturbed"].sum() == 40
