"""Question writing: prompts, item checks, and malformed judge output turned into drops."""

from __future__ import annotations

import random

import pytest

from assay.backends.llm.client import Judge
from assay.backends.llm.prompts import load_prompt
from assay.backends.llm.scripted import ScriptedJudge
from assay.corpus.chunking import Chunk
from assay.errors import JudgeParseError
from assay.generate.questions import (
    PROMPTS,
    UNANSWERABLE_ANSWER,
    key_facts_task,
    parse_item,
    questions_task,
)
from assay.generate.taxonomy import DEFAULT_TAXONOMY, TREC_TAXONOMY

CHUNK = Chunk("fees.md#1", "fees.md", "fees.md", 0, 60,
              "The Everyday account costs 4.50 euros a month. Cards are free.", (0, 2))
OTHER = Chunk("fees.md#2", "fees.md", "fees.md", 60, 100,
              "The Premier account costs 14 euros a month.", (2, 3))


def test_prompts_render_passages_facts_and_rules() -> None:
    task = questions_task(DEFAULT_TAXONOMY["multi_hop"], [CHUNK, OTHER],
                          [["Everyday costs 4.50 euros."], ["Premier costs 14 euros."]], 3)
    prompt = task.request.messages[1]["content"]
    assert "Write 3 different test question(s)" in prompt
    assert "PASSAGE 1:\n" + CHUNK.text in prompt and "PASSAGE 2:\n" + OTHER.text in prompt
    assert "From passage 2: Premier costs 14 euros." in prompt
    assert task.request.task == "write_questions"
    assert task.request.messages[0]["content"] == load_prompt("system", PROMPTS)
    negative = questions_task(DEFAULT_TAXONOMY["unanswerable"], [CHUNK], [["x"]], 1)
    assert "NOT" in negative.request.messages[1]["content"]
    trec = questions_task(TREC_TAXONOMY["trec_num"], [CHUNK], [["x"]], 1)
    assert "numeric" in trec.request.messages[1]["content"]
    assert "{" + "passages}" not in prompt  # every placeholder filled


def test_key_facts_interpretation() -> None:
    task = key_facts_task(CHUNK, max_facts=2)
    assert task.interpret({"facts": ["a.", " ", "b.", "c."]}) == ["a.", "b."]
    with pytest.raises(JudgeParseError, match="no facts"):
        task.interpret({"facts": []})


def test_parse_free_yes_no_and_unanswerable() -> None:
    rng = random.Random(0)
    item = parse_item({"question": "What does the Everyday account cost", "answer": "4.50 euros"},
                      DEFAULT_TAXONOMY["factual"], rng)
    assert item["question"].endswith("?") and item["answer"] == "4.50 euros"
    yes = parse_item({"question": "Are cards free of charge?", "answer": "YES - cards are free."},
                     DEFAULT_TAXONOMY["yes_no"], rng)
    assert yes["answer"] == "Yes, cards are free." and yes["correct"] == "yes"
    neg = parse_item("Does the Everyday account include travel insurance?",
                     DEFAULT_TAXONOMY["unanswerable"], rng)
    assert neg["answer"] == UNANSWERABLE_ANSWER


@pytest.mark.parametrize(("item", "qtype", "message"), [
    ({"question": "Fee?", "answer": "5"}, "factual", "fewer than 3 words"),
    ({"question": "What does it cost?"}, "factual", "no answer"),
    ({"question": "Is the card free?", "answer": "Maybe."}, "yes_no", "start with Yes or No"),
    ({"question": "Which account costs 14 euros?", "options": ["Premier", "Everyday"],
      "answer": "Premier"}, "multiple_choice", "3 to 6 distinct options"),
    ({"question": "Which account costs 14 euros?", "options": ["A1", "B1", "C1", "D1"],
      "answer": "Premier"}, "multiple_choice", "not exactly one of the options"),
    ("What does it cost?", "factual", "no answer"),
])
def test_malformed_items_raise(item: object, qtype: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_item(item, DEFAULT_TAXONOMY[qtype], random.Random(0))


def test_multiple_choice_options_are_shuffled_and_lettered() -> None:
    item = {"question": "Which account costs 14 euros a month?",
            "options": ["A) Premier", "B) Everyday", "C) Student", "D) Business"],
            "answer": "Premier"}
    letters = set()
    for seed in range(12):
        parsed = parse_item(item, DEFAULT_TAXONOMY["multiple_choice"], random.Random(seed))
        assert parsed["answer"] == "Premier"
        assert f"\n{parsed['correct']}. Premier" in parsed["question"]
        assert sorted(parsed["options"]) == ["Business", "Everyday", "Premier", "Student"]
        letters.add(parsed["correct"])
    assert len(letters) >= 3  # the right answer is not always first
    again = parse_item(item, DEFAULT_TAXONOMY["multiple_choice"], random.Random(3))
    assert again == parse_item(item, DEFAULT_TAXONOMY["multiple_choice"], random.Random(3))


def test_unusable_reply_is_an_explicit_parse_failure() -> None:
    judge = Judge(ScriptedJudge({"write_questions": "Sure! Here are questions: none"}))
    task = questions_task(DEFAULT_TAXONOMY["factual"], [CHUNK], [["fact"]], 2)
    [outcome] = judge.complete_json([task])
    assert outcome.parse_failure and outcome.parse_retried and not outcome.ok
    judge = Judge(ScriptedJudge({"write_questions": '{"questions": []}'}))
    [outcome] = judge.complete_json([task])
    assert "no questions written" in (outcome.error or "")


@pytest.mark.parametrize("item", [
    {"question": "<what the passage does not say>?", "answer": "x"},
    {"question": "What is the <topic> of the passage?", "answer": "It is about fees."},
    {"question": "What does the account cost a month?", "answer": "<answer>"},
])
def test_prompt_placeholders_are_never_kept(item: dict[str, str]) -> None:
    from assay.generate.questions import PlaceholderError

    qtype = DEFAULT_TAXONOMY["unanswerable" if "does not say" in item["question"] else "factual"]
    with pytest.raises(PlaceholderError, match="placeholder"):
        parse_item(item, qtype, random.Random(0))


def test_question_requests_leave_max_tokens_to_the_judge_setting() -> None:
    task = questions_task(DEFAULT_TAXONOMY["factual"], [CHUNK], [["Cards are free."]], 1)
    assert task.request.max_tokens is None
    assert key_facts_task(CHUNK).request.max_tokens is None
    assert questions_task(DEFAULT_TAXONOMY["factual"], [CHUNK], [["Cards are free."]], 1,
                          max_tokens=90).request.max_tokens == 90
