"""The heads that read assay's text rules were trained under the rules in force (design note 0058).

Each head records, when trained, the fingerprint of its lexical features on a frozen probe
(:mod:`assay.text.rules_probe`). A change to ``assay.text.facts`` (or the alignment and token
support the combining head reads) that changes those features on the probe fails here until the
heads are retrained under it, as design note 0056 found they must be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from assay.backends.heads.nli_features import lexical_fingerprint
from assay.backends.heads.store import load_head
from assay.evaluators.hallucination_signals import text_fingerprint
from assay.text import facts
from assay.text.facts import extract_facts
from assay.text.reading import clear_readings
from assay.text.rules_probe import FINGERPRINT, probe_pairs

#: Each head that reads the text rules, the fingerprint of what it reads, and how to retrain it.
HEADS: dict[str, tuple[Callable[[], str], str]] = {
    "nli": (lexical_fingerprint, "--head nli"),
    "nli-token": (lexical_fingerprint, "--head nli-token"),
    "hallucination": (text_fingerprint, "--head hallucination (after the NLI heads)"),
}


@pytest.mark.parametrize("name", sorted(HEADS))
def test_each_head_was_trained_under_the_text_rules_in_force(name: str) -> None:
    current, retrain = HEADS[name]
    recorded = load_head(name).header["training"].get(FINGERPRINT)
    assert recorded == current(), (
        f"the {name!r} head was trained under other text rules than assay.text now applies "
        f"(its features on the probe differ): retrain it with `python scripts/train_heads.py "
        f"{retrain}` and re-run the validity benchmarks (design notes 0056, 0058)")


@pytest.fixture
def without_durations(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The facts rules with the duration units (design note 0056) taken out, caches cleared."""
    clear_readings()
    monkeypatch.setattr(facts, "_DURATION_UNITS", {})
    yield
    clear_readings()


def test_a_rule_change_changes_both_fingerprints(without_durations: None) -> None:
    assert lexical_fingerprint() != load_head("nli").header["training"][FINGERPRINT]
    assert text_fingerprint() != load_head("hallucination").header["training"][FINGERPRINT]


def test_the_probe_reads_every_kind_of_fact() -> None:
    kinds = {fact.kind for claim, _ in probe_pairs() for fact in extract_facts(claim)}
    assert {"number", "date", "name", "negation", "word"} <= kinds
    assert any(fact.duration for claim, _ in probe_pairs() for fact in extract_facts(claim))
