"""The contrast rows of the toxicity heads (scripts/heads/toxicity_contrast.py)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))

from heads.toxicity_contrast import (  # noqa: E402
    APPROVING_REFERENCES,
    BLAMING_REFERENCES,
    CONDEMNING_QUOTES,
    CONTEMPT,
    CONTEMPT_ACTS,
    DELIVERING_QUOTES,
    GROUPS,
    PRAISE,
    PRAISE_ACTS,
    contrast_examples,
    speaker_rows,
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
    kept = {e.text for e in contrast_examples(["Women are not kind!"], seed=0, speaker=True)}
    all_rows = {text for text, _ in [*stance_rows(seed=0), *target_rows(seed=0),
                                     *speaker_rows(seed=0)]}
    assert "Women are not kind." not in kept
    assert len(all_rows) - len(kept) <= 2
    assert contrast_examples([], seed=0)[0].source == "stance_contrast"


def test_the_same_act_is_toxic_on_a_group_and_not_on_a_thing() -> None:
    rows = target_rows(seed=1)
    for text, label in rows:
        assert label == int(any(group.lower() in text.lower() for group in GROUPS)), text
    assert {label for _, label in rows} == {0, 1}


def test_speaker_rows_are_opt_in() -> None:
    """The shipped head's rows leave the speaker rows out (0055: measured, not shipped)."""
    plain = contrast_examples([], seed=0)
    with_speaker = contrast_examples([], seed=0, speaker=True)
    assert len(with_speaker) - len(plain) == len(speaker_rows(seed=0))
    assert not any('"' in e.text for e in plain)


def _frame_of(text: str, frames: tuple[str, ...]) -> str | None:
    """The frame of ``frames`` that ``text`` fills (its quote or statement left out)."""
    for frame in frames:
        before, _, after = frame.partition("{q}") if "{q}" in frame else frame.partition("{g}")
        if text.lower().startswith(before.lower()) and text.endswith(after.split("{p}")[-1]):
            return frame
    return None


def test_the_same_quote_is_toxic_delivered_and_not_toxic_condemned() -> None:
    """Every quoted statement appears twice: in a condemning frame (0) and a delivering one (1),
    so neither the quotation marks nor the hateful words decide the label."""
    labels_of: dict[str, set[int]] = {}
    for text, label in speaker_rows(seed=2):
        if '"' not in text:
            continue
        quote = text.split('"')[1]
        condemning = _frame_of(text, CONDEMNING_QUOTES)
        delivering = _frame_of(text, DELIVERING_QUOTES)
        assert (condemning is None) != (delivering is None), text
        assert label == int(delivering is not None), text
        labels_of.setdefault(quote, set()).add(label)
    assert len(labels_of) == 10 * len(GROUPS)
    assert all(labels == {0, 1} for labels in labels_of.values())


def test_references_are_paired_blame_and_approval() -> None:
    references = [(t, label) for t, label in speaker_rows(seed=0) if '"' not in t]
    assert len(references) == 2 * 5 * len(GROUPS)
    for (blamed, zero), (approved, one) in zip(references[::2], references[1::2], strict=True):
        assert (zero, one) == (0, 1)
        assert _frame_of(blamed, BLAMING_REFERENCES) is not None, blamed
        assert _frame_of(approved, APPROVING_REFERENCES) is not None, approved
