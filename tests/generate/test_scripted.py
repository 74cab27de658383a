"""The scripted question writer: domain-neutral wording, one true option per question."""

from __future__ import annotations

import json
import random

from assay.backends.llm.scripted import ScriptedJudge
from assay.corpus.chunking import Chunk
from assay.generate.questions import key_facts_task, parse_item, questions_task
from assay.generate.taxonomy import DEFAULT_TAXONOMY

FACTS = ["Lists are mutable sequences.", "Tuples are immutable sequences.",
         "A range represents an immutable sequence of numbers.",
         "The sort method sorts the list in place."]
CHUNK = Chunk("stdtypes#1", "stdtypes", "stdtypes.md", 0, 200, " ".join(FACTS), (0, 4))
BANKING = ("customer", "policy", "account", "cryptocurrency", "wallet", "bank")


def _items(qtype: str, count: int = 4) -> list[dict[str, object]]:
    judge = ScriptedJudge()
    task = questions_task(DEFAULT_TAXONOMY[qtype], [CHUNK], [FACTS], count, polarity="no")
    return [i for i in json.loads(judge.complete(task.request).text)["questions"]]


def test_scripted_questions_use_no_banking_words_on_another_corpus() -> None:
    for qtype in DEFAULT_TAXONOMY:
        for item in _items(qtype):
            text = json.dumps(item).lower()
            assert not any(word in text for word in BANKING), (qtype, item)


def test_scripted_multiple_choice_has_exactly_one_true_option() -> None:
    for item in _items("multiple_choice"):
        options = item["options"]
        assert isinstance(options, list) and len(set(options)) == 4
        true_options = [o for o in options if o in FACTS]
        assert true_options == [item["answer"]], item
        parse_item(item, DEFAULT_TAXONOMY["multiple_choice"], random.Random(0))


def test_scripted_key_facts_are_the_sentences() -> None:
    judge = ScriptedJudge()
    assert json.loads(judge.complete(key_facts_task(CHUNK).request).text)["facts"] == FACTS
