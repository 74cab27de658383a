"""The claim-to-window alignment: a detail moved from elsewhere in the context is reported, a
claim that keeps its window's details is not, and windows never span two passages."""

from __future__ import annotations

import pytest

from assay.text.alignment import ContextIndex, detail_keys

DOCUMENT = [
    "Maria Lopez opened the Porto branch in 2019.",
    "The branch serves small businesses.",
    "In 2021 the bank hired Tom Reyes to run its Lisbon office.",
    "Lisbon has 40 staff.",
]


def test_a_name_or_number_moved_from_another_sentence_is_reported() -> None:
    index = ContextIndex.of(DOCUMENT)
    faithful, none = index.moved_details("Maria Lopez opened the Porto branch in 2019.")
    assert (faithful, none) == (0.0, [])
    share, moved = index.moved_details("Maria Lopez opened the Porto branch in 2021.")
    assert moved == ["2021"] and 0.0 < share < 0.5
    share_name, moved_name = index.moved_details("Tom Reyes opened the Porto branch in 2019.")
    assert moved_name == ["Tom", "Reyes"] and share_name > share


def test_words_absent_from_the_context_are_not_moved_details() -> None:
    index = ContextIndex.of(DOCUMENT)
    share, moved = index.moved_details("Maria Lopez opened the Porto branch in 1990.")
    assert moved == [] and share == 0.0


def test_a_claim_that_joins_two_adjacent_sentences_is_aligned_with_both() -> None:
    index = ContextIndex.of(DOCUMENT)
    assert index.moved_details("The Porto branch opened in 2019 serves small businesses.") == (
        0.0, [])


def test_windows_stay_inside_one_passage() -> None:
    within = ContextIndex.of(DOCUMENT[:2], owners=[0, 0])
    apart = ContextIndex.of(DOCUMENT[:2], owners=[0, 1])
    claim = "Maria Lopez opened the Porto branch for businesses."
    assert within.moved_details(claim)[1] == []
    assert apart.moved_details(claim)[1] == ["businesses"]


def test_a_sentence_condensing_a_second_passage_moves_nothing() -> None:
    """Two details or more that another window holds together are a condensed second passage
    (a faithful summary sentence), not a moved detail; a two-word name is one detail."""
    index = ContextIndex.of(DOCUMENT)
    condensed = "Maria Lopez opened the Porto branch in 2019; the Lisbon office has 40 staff."
    assert index.moved_details(condensed) == (0.0, [])
    assert index.moved_details("Tom Reyes opened the Porto branch in 2019.")[1] == [
        "Tom", "Reyes"]


def test_rare_details_weigh_more_than_common_words() -> None:
    index = ContextIndex.of(DOCUMENT)
    assert index.idf["lisbon"] < index.idf["porto"]  # two sentences name Lisbon, one Porto
    assert index.idf["#2019"] == index.idf["porto"]  # numbers are keyed, weighed like words


@pytest.mark.parametrize(("claim", "expected"), [
    ("", (0.0, [])),
    ("The and of.", (0.0, [])),
])
def test_claims_without_details_move_nothing(claim: str, expected: tuple[float, list[str]]) -> None:
    assert ContextIndex.of(DOCUMENT).moved_details(claim) == expected
    assert ContextIndex.of([]).moved_details("Maria opened it.") == (0.0, [])


def test_detail_keys_normalise_numbers_and_stem_words() -> None:
    assert detail_keys("Fees of 5,000 were waived; fees rose.") == {
        "fee": "Fees", "#5000": "5,000", "waiv": "waived", "rose": "rose"}


def test_the_best_window_is_the_sentences_holding_the_claim_s_rarest_details() -> None:
    index = ContextIndex.of(DOCUMENT)
    assert index.best_window("Tom Reyes runs the Lisbon office.") == (1, 3)  # first on ties
    assert index.best_window("Maria Lopez opened the Porto branch.") == (0, 2)
    # passages: a window never reaches into the next passage, even as the best one
    split = ContextIndex.of(DOCUMENT, owners=[0, 0, 0, 1])
    assert split.best_window("Lisbon has 40 staff.") == (3, 4)
    assert ContextIndex.of([]).best_window("Anything.") == (0, 0)
