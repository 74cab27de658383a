"""Conflicting figures: the same statement with one different number, month or number word."""

from __future__ import annotations

import pytest

from assay.text.figures import FigureConflict, conflicting_figures


@pytest.mark.parametrize(("first", "second", "figures"), [
    ("The monthly fee is 5 euros.", "The monthly fee is 9 euros.", ("5", "9")),
    ("The monthly fee is 4.50 euros.", "The monthly fee is 4.90 euros.", ("4.50", "4.90")),
    ("Transfers take two days.", "Actually, transfers take 3 days.", ("two", "3")),
    ("The card expires in May.", "The card expires in June.", ("May", "June")),
    ("The rate is 5% a year.", "However, the rate is 9% a year.", ("5", "9")),
    ("The limit is 5,000 euros a day.", "In fact, the limit is 2,000 euros a day.",
     ("5,000", "2,000")),
])
def test_one_changed_figure_in_the_same_statement_conflicts(
        first: str, second: str, figures: tuple[str, str]) -> None:
    assert conflicting_figures(first, second) == FigureConflict(*figures)


@pytest.mark.parametrize(("first", "second"), [
    ("The fee is 5 euros.", "The fee is five euros."),  # same figure, other spelling
    ("The fee is 5,000 euros.", "The fee is 5000 euros."),
    ("In 2023 the fee was 5 euros.", "In 2024 the fee was 9 euros."),  # two conditions
    ("The fee was 5 euros.", "The fee is 9 euros."),  # tense: then and now
    ("The Premier account costs 14 euros.", "The Everyday account costs 4 euros."),
    ("The fee is 5 euros.", "The fee is not 9 euros."),
    ("Turn 1", "Turn 2"),  # labels, not statements
    ("Step 1 of 3.", "Step 2 of 3."),
    ("The fee is low.", "The fee is high."),  # no figure: the NLI model's part
])
def test_other_pairs_do_not(first: str, second: str) -> None:
    assert conflicting_figures(first, second) is None
