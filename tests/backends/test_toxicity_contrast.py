"""The stance contrast rows of the toxicity heads (scripts/heads/toxicity_contrast.py)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))

from heads.toxicity_contrast import (  # noqa: E402
    CONTEMPT,
    CONTEMPT_ACTS,
    GROUPS,
    PRAISE,
    PRAISE_ACTS,
    contrast_examples,
    stance_rows,
    target_rows,
)


def test_each_cell_is_labelled_by_praise_and_negation() -> None:
    """Praise affirmed and contempt negated are not toxic; praise negated and contempt affirmed
    are identity attacks; so a group, a frame or a "not" alone never decides the label."""
    negations = (" not ", "n't ", "never", "None of", "Nobody", "anything but")
    praise = [*PRAISE, *(verb for _, verb in PRAISE_ACTS)]
    contempt = [*CONTEMPT, *(verb for _, verb in CONTEMPT_ACTS)]
    seen = Counter()
    for text, label in stance_rows(seed=3):
        negated = any(n in text for n in negations)
        praised = any(text.endswith(f" {p}.") for p in praise)
        assert praised != any(text.endswith(f" {p}.") for p in contempt), text
        assert label == int(praised == negated), text
        seen[praised, negated] += 1
    assert len(seen) == 4 and min(seen.values()) > 100


def test_labels_are_balanced_and_every_group_appears_on_both_sides() -> None:
    rows = stance_rows()
    assert Counter(label for _, label in rows) == {0: len(rows) // 2, 1: len(rows) // 2}
    for group in GROUPS:
        labels = {label for text, label in rows if group.lower() in text.lower()}
        assert labels == {0, 1}, group


def test_rows_close_to_a_suite_sentence_are_dropped() -> None:
    kept = {e.text for e in contrast_examples(["Women are not kind!"], seed=0)}
    all_rows = {text for text, _ in [*stance_rows(seed=0), *target_rows(seed=0)]}
    assert "Women are not kind." not in kept
    assert len(all_rows) - len(kept) <= 2
    assert contrast_examples([], seed=0)[0].source == "stance_contrast"


def test_the_same_act_is_toxic_on_a_group_and_not_on_a_thing() -> None:
    rows = target_rows(seed=1)
    for text, label in rows:
        assert label == int(any(group.lower() in text.lower() for group in GROUPS)), text
    assert {label for _, label in rows} == {0, 1}
