"""Query selection: each drop reason, with hand-built embeddings."""

from __future__ import annotations

import numpy as np

from assay.backends.embed.fake import TableEmbedder
from assay.corpus.chunking import Chunk
from assay.generate.questions import Candidate
from assay.generate.sampling import Slot
from assay.generate.selection import SelectionConfig, grounding, grounding_text, select

CHUNKS = [
    Chunk("a#1", "a", "a", 0, 50, "The Everyday account costs 4.50 euros a month.", (0, 1)),
    Chunk("b#1", "b", "b", 0, 50, "Mortgage overpayments of up to 10% a year are free.", (0, 1)),
]
CHUNK_VECTORS = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
ANSWERABLE = {"factual": True, "unanswerable": False, "yes_no": True}


def cand(i: int, qtype: str, question: str, answer: str, chunk: int = 0, **kw: object
         ) -> Candidate:
    return Candidate(Slot(i, 0, qtype, (chunk,)), question, answer, **kw)  # type: ignore[arg-type]


def run(cands: list[Candidate], table: dict[str, list[float]], **config: float) -> None:
    select(cands, CHUNKS, CHUNK_VECTORS, TableEmbedder(table), ANSWERABLE,
           SelectionConfig(**config))  # type: ignore[arg-type]


def test_each_reason() -> None:
    good = cand(0, "factual", "What does the Everyday account cost?", "4.50 euros a month.")
    wrong_number = cand(1, "factual", "What does the Everyday account cost each month?",
                        "6.90 euros a month.")
    off = cand(2, "factual", "What is the Everyday monthly price?", "4.50 euros a month.")
    leak = cand(3, "factual", "Is 4.50 euros a month the Everyday price?",
                "4.50 euros a month")
    dup = cand(4, "factual", "How much does the Everyday account cost?", "4.50 euros a month.")
    neg_ok = cand(5, "unanswerable", "Does the Everyday account include pet insurance?",
                  "The documents do not contain this information.")
    neg_bad = cand(6, "unanswerable", "What does the Everyday account cost per month?",
                   "The documents do not contain this information.")
    failed = Candidate(Slot(7, 0, "factual", (0,)), dropped="parse_failure")
    table = {
        good.question: [0.9, 0.1, 0.0],
        wrong_number.question: [0.9, 0.0, 0.1],
        off.question: [0.1, 0.1, 0.9],
        leak.question: [0.8, 0.2, 0.0],
        dup.question: [0.9, 0.1, 0.001],
        neg_ok.question: [0.3, 0.1, 0.9],
        neg_bad.question: [0.95, 0.0, 0.05],
    }
    cands = [good, wrong_number, off, leak, dup, neg_ok, neg_bad, failed]
    run(cands, {k or "": v for k, v in table.items()})
    assert [c.dropped for c in cands] == [None, "ungrounded", "off_source", "answer_in_question",
                                          "near_duplicate", None, "answerable_from_corpus",
                                          "parse_failure"]
    assert good.scores["grounding"] == 1.0 and good.scores["source_similarity"] > 0.9
    assert "grounding" not in neg_ok.scores  # negatives are exempt from grounding
    assert neg_ok.scores["max_corpus_similarity"] < 0.7
    assert "a#1" in neg_bad.detail and "What does the Everyday account cost?" in dup.detail


def test_thresholds_are_configurable() -> None:
    off = cand(0, "factual", "What is the Everyday monthly price?", "4.50 euros a month.")
    run([off], {off.question or "": [0.1, 0.1, 0.9]}, min_source_similarity=0.0)
    assert off.dropped is None
    wrong = cand(1, "factual", "What does the Everyday account cost?", "6.90 euros a month.")
    run([wrong], {wrong.question or "": [0.9, 0.1, 0.0]}, strict_key_facts=False)
    assert wrong.dropped is None and wrong.scores["unsupported_key_facts"] == 1


def test_grounding_reuses_unsupported_facts() -> None:
    assert grounding(["Overpayments of up to 10% a year are free."], [[CHUNKS[1].text]]) == [
        (1.0, 0)]
    changed = grounding(["Overpayments of up to 20% a year are free."], [[CHUNKS[1].text]])[0]
    assert changed is not None and changed[0] < 1.0 and changed[1] == 1
    assert grounding(["Yes"], [[CHUNKS[1].text]]) == [None]  # nothing checkable
    yes_no = cand(0, "yes_no", "Are overpayments free?", "No, only up to 10% a year.",
                  correct="no")
    assert grounding_text(yes_no) == "only up to 10% a year."


def test_answers_without_content_or_with_everyday_words_only_are_ungrounded() -> None:
    chunks = [Chunk(f"c#{i}", "c", "c", 0, 50, text, (0, 1)) for i, text in enumerate([
        "The account fee is 4 euros a month and the card is free with every account.",
        "A replacement card costs 10 euros; the account fee is unchanged.",
        "The card fee abroad is 2% of the amount charged to the account.",
    ])]
    empty = cand(0, "factual", "What is the account fee, then?", "It is what it is.")
    general = cand(1, "factual", "How is the account fee set?", "The account fee depends on "
                   "the card.")
    faithful = cand(2, "factual", "What is the account fee?", "The account fee is 4 euros a "
                    "month.")
    bare = cand(3, "yes_no", "Is the card free with every account?", "Yes.", correct="yes")
    vectors = ([1.0, 0.0, 0.0], [0.9, 0.3, 0.0], [0.9, 0.0, 0.3], [0.8, 0.4, 0.4])
    table = {c.question or "": v for c, v in zip((empty, general, faithful, bare), vectors,
                                                 strict=True)}
    select([empty, general, faithful, bare], chunks, np.eye(3), TableEmbedder(table),
           ANSWERABLE, SelectionConfig(min_source_similarity=-1.0, duplicate_similarity=1.0))
    assert empty.dropped == "ungrounded" and "states no content word" in empty.detail
    assert general.dropped == "ungrounded" and general.detail.endswith("not in the source: depends")
    assert general.scores["grounding"] == 0.75 and general.scores["specific_grounding"] < 0.6
    assert faithful.dropped is None and faithful.scores["specific_grounding"] == 1.0
    assert bare.dropped is None  # a bare yes/no has nothing more to ground than its question
