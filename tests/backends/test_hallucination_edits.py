"""The synthetic detail edits that train the hallucination head: each kind changes exactly the
detail it names, the key-fact signal sees the ones it should, and the edits are seeded."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from assay.evaluators.hallucination_signals import context_facts, unsupported_key_facts
from assay.text.alignment import ContextIndex

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from heads.edits import (  # noqa: E402
    EDITS,
    change_quantity,
    detail_edits,
    move_detail,
    surface_forms,
    swap_antonym,
)
from heads.hallucination import (  # noqa: E402
    MAX_OTHER_PREMISES,
    kind_weights,
    with_documents,
    with_edits,
    with_joined,
)

PREMISE = ("Maria Lopez opened the branch in Porto in 2019 with 12 staff. The branch is not open "
           "on Sundays, and the manager greets every client at the door.")
CLAIM = "In 2019 Maria opened the branch in Porto, which is not open on Sundays."


def test_edits_that_reuse_the_premise_s_details_are_invisible_to_the_key_fact_check() -> None:
    """A number or name moved from elsewhere in the premise, or a dropped negation, leaves
    every key fact supported: the rows that teach the head not to rely on that signal alone."""
    context = context_facts([PREMISE])
    assert unsupported_key_facts(CLAIM, context) == []
    rng = np.random.default_rng(0)
    number = EDITS["number"](PREMISE, CLAIM, rng)
    assert number == CLAIM.replace("2019", "12")
    name = EDITS["name"](PREMISE, "The branch opened in Porto.", rng)
    assert name is not None and "Porto" not in name
    assert any(other in name for other in ("Maria", "Lopez", "Sundays"))
    negation = EDITS["negation"](PREMISE, CLAIM, rng)
    assert negation == "In 2019 Maria opened the branch in Porto, which is open on Sundays."
    for edited in (number, name, negation):
        assert unsupported_key_facts(edited, context) == []


def test_an_added_negation_is_an_unsupported_key_fact() -> None:
    context = context_facts(["The manager greets every client at the door."])
    edited = EDITS["negation"]("", "The manager does greet every client.",
                               np.random.default_rng(0))
    assert edited == "The manager does not greet every client."
    assert [f.kind for f in unsupported_key_facts(edited, context)] == ["negation"]


def test_a_number_absent_from_the_premise_is_invented_near_the_old_one() -> None:
    edited = EDITS["number"]("The fee is 12 euros.", "The fee is 12 euros.",
                             np.random.default_rng(1))
    assert edited is not None and "12" not in edited
    context = context_facts(["The fee is 12 euros."])
    assert [f.kind for f in unsupported_key_facts(edited, context)] == ["number"]


def test_roles_and_words_swap_without_new_words() -> None:
    roles = EDITS["roles"]("", "The manager is greeting the client at the door.",
                           np.random.default_rng(0))
    assert roles == "The client is greeting the manager at the door."
    word = EDITS["word"]("Sales declined and costs increased.", "Sales declined sharply.",
                         np.random.default_rng(0))
    assert word == "Sales increased sharply."


def test_edits_do_not_apply_where_they_cannot() -> None:
    rng = np.random.default_rng(0)
    assert EDITS["number"]("A dog runs.", "A dog runs.", rng) is None
    assert EDITS["name"]("a dog runs.", "The dog runs.", rng) is None
    assert EDITS["negation"]("", "Dogs run fast.", rng) is None
    assert EDITS["roles"]("", "Dogs run fast.", rng) is None


def test_detail_edits_are_seeded_and_of_different_kinds() -> None:
    first = detail_edits(PREMISE, CLAIM, np.random.default_rng(7), per_claim=3)
    again = detail_edits(PREMISE, CLAIM, np.random.default_rng(7), per_claim=3)
    assert first == again
    kinds = [kind for kind, _ in first]
    assert len(kinds) == 3 and len(set(kinds)) == 3
    assert all(text != CLAIM for _, text in first)


def test_a_moved_detail_comes_from_elsewhere_in_the_document_and_is_seen_by_alignment() -> None:
    """The 'moved' edit takes its name, number or word from another premise of the document:
    every key fact stays supported, only the alignment signal sees the move."""
    own = "Maria Lopez opened the branch in Porto in 2019."
    elsewhere = "Tom Reyes joined the bank in 2021 as a trader."
    document = [own, "Clients waited outside.", elsewhere]
    claim = "Maria opened the branch in 2019."
    edits = {move_detail(elsewhere, claim, np.random.default_rng(seed)) for seed in range(20)}
    edits.discard(None)
    assert edits and claim not in edits
    assert all(any(w in e for w in ("Tom", "Reyes", "2021", "trader", "joined")) for e in edits)
    index = ContextIndex.of(document)
    facts = context_facts(document)
    for edited in edits:
        assert unsupported_key_facts(edited, facts) == []
        assert index.moved_details(edited)[0] > 0.0
    assert index.moved_details(claim)[0] == 0.0
    assert move_detail("no details here", "A dog runs.", np.random.default_rng(0)) is None


def test_documents_surround_each_premise_with_others_of_its_source_seeded() -> None:
    rows = [{"premise": f"Premise number {i} is here.", "hypothesis": "h", "label": "entailment",
             "source": "a" if i < 8 else "b"} for i in range(12)]
    first, again = with_documents(rows, 0), with_documents(rows, 0)
    assert first == again
    for row in first:
        lines = row["context"].split("\n")
        assert row["premise"] in lines and len(lines) <= MAX_OTHER_PREMISES + 1
        source = {r["premise"]: r["source"] for r in rows}
        assert {source[line] for line in lines} == {row["source"]}
        assert row["premise"] not in row["elsewhere"]
    assert any(len(r["context"].split("\n")) > 1 for r in first)
    weights = kind_weights(np.array(["ok", "x", "y", "y"]), np.array([1, 0, 0, 0]))
    # each unsupported kind weighs 1.5 in all; the supported rows as much as all of them
    assert weights.tolist() == [3.0, 1.5, 0.75, 0.75]


def test_joined_claims_take_their_second_half_from_another_premise_of_the_document() -> None:
    rows = []
    for i in range(6):
        premise = f"Premise {i} tells a story."
        rows.append({"premise": premise, "hypothesis": f"Claim {i} holds.", "label": "entailment",
                     "source": "a", "kind": "nli_entailment"})
        rows.append({"premise": premise, "hypothesis": f"Claim {i} is new.", "label": "neutral",
                     "source": "a", "kind": "nli_neutral"})
    rows = with_documents(rows, 0)
    joined = with_joined(rows, 0)
    assert joined[: len(rows)] == rows and joined == with_joined(rows, 0)
    added = joined[len(rows):]
    assert {r["kind"] for r in added} == {"joined_entailment", "joined_unsupported"}
    for row in added:
        first, second = row["hypothesis"].split("; ")
        assert row["hypothesis"].startswith(first) and first in {r["hypothesis"].rstrip(".")
                                                                 for r in rows}
        number = second.split()[1]
        assert f"Premise {number} tells a story." in row["others"]  # another premise's claim
        assert (row["label"] == "entailment") == second.endswith("holds.")


def test_meaning_edits_change_a_predicate_or_a_quantity_word_only() -> None:
    rng = np.random.default_rng(0)
    surfaces = surface_forms(["Sales decreased.", "The door was closed.", "It decreased again."])
    assert surfaces["decreas"] == "decreased"
    assert swap_antonym("", "Sales increased in May.", rng, surfaces) == "Sales decreased in May."
    assert swap_antonym("", "Sales rose in May.", rng, surfaces) is None  # no listed antonym
    edited = change_quantity("", "All staff left before noon.", rng)
    assert edited in ("Some staff left before noon.", "All staff left after noon.")
    assert change_quantity("", "Staff left at noon.", rng) is None
    # the antonym edit is what the key-fact check sees; a quantity word is not a key fact
    context = context_facts(["Sales increased in May."])
    assert [f.text for f in unsupported_key_facts("Sales decreased in May.", context)] == [
        "decreased"]
    assert unsupported_key_facts("Sales increased after May.", context_facts(
        ["Sales increased before May."])) == []


def test_meaning_edits_are_added_without_changing_the_other_edits() -> None:
    row = {"premise": "All staff increased sales in 2019 in Porto.", "hypothesis":
           "All staff have increased sales in 2019.", "label": "entailment", "source": "s",
           "others": [],
           "elsewhere": ""}
    rows = [row, {**row, "hypothesis": "Sales decreased.", "label": "contradiction"}]
    edited = {r["kind"]: r["hypothesis"] for r in with_edits(rows, 0)}
    assert edited["edit_antonym"] == "All staff have decreased sales in 2019."
    assert edited["edit_quantity"] == "Some staff have increased sales in 2019."
    # the detail edits are those the trainer made before the meaning edits existed
    details = detail_edits(row["premise"], row["hypothesis"], np.random.default_rng(0), 2)
    assert details and all(edited[f"edit_{kind}"] == text for kind, text in details)
