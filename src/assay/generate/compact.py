"""The compact question writer, for small local models: one short question per request, the
answer taken from the chunk.

A 135M-parameter model cannot follow the full writer's prompts (key facts, then several
questions with answers and options in one JSON reply): on the demo corpus SmolLM2-135M kept 0 of
60 questions that way (replies cut at the token limit, prompt placeholders copied). The compact
writer asks it for much less, in the way answer-aware question generation does (the answer is
chosen first, the model only words a question about it):

* the facts are the chunk's own sentences (:func:`~assay.generate.questions.fallback_facts`),
  so no key-facts request is made and every expected answer is grounded by construction;
* each slot gets a different sentence of its chunk; the request holds a system line, three
  worked examples (sentence → question, in a neutral domain) and the sentence, and its reply is
  one field, ``{"question": ...}``, whose JSON Schema has a ``pattern`` (a question word first,
  a question mark last, no ``<`` or ``>``). llama.cpp's server turns the schema into a GBNF
  grammar, so the model cannot write anything else (:mod:`assay.backends.llm.openai_compat`);
* the answer is built from the sentence: the sentence itself (``factual``), ``Yes, <sentence>``
  or, for a question written from the sentence with its first number changed
  (:func:`~assay.generate.falsify.false_number`), ``No, <sentence>`` (``yes_no``; the question
  must contain the changed number, else it is dropped as ``malformed``; a sentence without a
  number gets a "yes" question: the model was seen to drop an inserted "not", asking a question
  whose answer is "yes"); the sentence among three falsified ones (``multiple_choice``); the
  fixed unanswerable answer.

A question using a domain word of the worked examples (:data:`EXAMPLE_WORDS`) that its source
lacks ("Is a lost library card ...?" on a savings passage) is dropped as ``placeholder``.
Query selection then judges every question as for the full writer (a question that copies its
answer, strays from its source or duplicates another is dropped). Types that need two chunks or
reasoning (``multi_hop``, ``inference``) are not written by the compact writer.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from assay.backends.llm.client import JsonTask, Judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import TASK_REPLIES
from assay.corpus.chunking import Chunk
from assay.errors import InvalidInputError, JudgeParseError, PlaceholderError
from assay.generate.falsify import distractors, false_number
from assay.generate.questions import (
    Candidate,
    fallback_facts,
    outcome_error,
    parse_item,
    run_in_batches,
)
from assay.generate.sampling import Slot
from assay.generate.taxonomy import QueryType
from assay.text.facts import STOPWORDS

#: The request's task name (for the cache, the stats and the scripted judge).
TASK = "compact_question"
#: Query types written when none are named.
COMPACT_TYPES = ("factual", "yes_no", "multiple_choice", "unanswerable")
#: Default types the compact writer cannot write, and why.
UNSUPPORTED = {"multi_hop": "it needs a fact from each of two chunks",
               "inference": "it needs reasoning over several facts"}
#: Most tokens of a reply (one short question in a one-field object).
MAX_TOKENS = 80
#: After the question word: no quote, bracket, question mark, backslash or line break, then one
#: question mark. Unbounded: a {10,140} repetition gave the same questions but compiles to a
#: grammar of 140 nested rules that llama-cpp-python samples ~25% slower (measured on 3
#: requests); the length is capped by MAX_TOKENS.
_WORD = re.compile(r"[a-z][a-z-]+")
_BODY = r'[^"<>?\\\n]+[?]$'
_WH = "What|Which|When|How|Who|Where|Why"
_AUX = "Is|Are|Can|Do|Does|Did|Will|Must|Should|Has|Have|May"
#: Kind of question -> (system line, worked examples, pattern of the question).
_KINDS: dict[str, tuple[str, tuple[tuple[str, str], ...], str]] = {
    "wh": ("You write one question about a sentence. The sentence must answer the question.", (
        ("The library opens at 9 am on weekdays and at 10 am on Saturdays.",
         "When does the library open on Saturdays?"),
        ("Members can borrow up to 12 books at a time for three weeks.",
         "How many books can a member borrow at a time?"),
        ("Lost cards are replaced for a fee of 2 pounds.",
         "What is the fee for replacing a lost library card?"),
    ), f"^({_WH}){_BODY}"),
    "yes": ("You write one yes/no question about a sentence. The sentence answers it with yes.", (
        ("The library opens at 9 am on weekdays and at 10 am on Saturdays.",
         "Does the library open at 10 am on Saturdays?"),
        ("Members can borrow up to 12 books at a time for three weeks.",
         "Can members borrow up to 12 books at a time?"),
        ("Lost cards are replaced for a fee of 2 pounds.",
         "Is a lost library card replaced for a fee of 2 pounds?"),
    ), f"^({_AUX}){_BODY}"),
    "unanswerable": ("You write one question on the subject of a sentence that the sentence "
                     "does NOT answer.", (
        ("The library opens at 9 am on weekdays and at 10 am on Saturdays.",
         "Is the library open on public holidays?"),
        ("Members can borrow up to 12 books at a time for three weeks.",
         "How many e-books can a member download each month?"),
        ("Lost cards are replaced for a fee of 2 pounds.",
         "How long does it take to post a replacement card?"),
    ), f"^({_WH}|{_AUX}){_BODY}"),
}


def compact_types(types: Sequence[QueryType]) -> None:
    """Raise :class:`InvalidInputError` naming the types the compact writer cannot write.

    Example:
        >>> from assay.generate.taxonomy import DEFAULT_TAXONOMY
        >>> compact_types([DEFAULT_TAXONOMY["factual"], DEFAULT_TAXONOMY["multi_hop"]])
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: the compact writer cannot write 'multi_hop' questions \
(it needs a fact from each of two chunks); write them with --writer full and a larger model, \
or choose from factual, yes_no, multiple_choice, unanswerable
    """
    for qtype in types:
        why = UNSUPPORTED.get(qtype.name) or (
            "it needs two chunks" if qtype.n_chunks != 1 else None)
        if why is not None:
            raise InvalidInputError(
                f"the compact writer cannot write {qtype.name!r} questions ({why}); write them "
                f"with --writer full and a larger model, or choose from {', '.join(COMPACT_TYPES)}")


def _kind(qtype: QueryType) -> str:
    if not qtype.answerable:
        return "unanswerable"
    return "yes" if qtype.answer_format == "yes_no" else "wh"


def question_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a compact reply: one ``question`` matching the kind's pattern.

    Example:
        >>> question_schema("yes")["properties"]["question"]["pattern"][:12]
        '^(Is|Are|Can'
    """
    return {"type": "object", "properties": {"question": {"type": "string",
                                                          "pattern": _KINDS[kind][2]}},
            "required": ["question"], "additionalProperties": False}


def compact_task(sentence: str, kind: str, *, extra: Mapping[str, Any] | None = None
                 ) -> JsonTask:
    """Ask for one question of ``kind`` (``wh``, ``yes``, ``unanswerable``) about ``sentence``
    -> the question text.

    Example:
        >>> task = compact_task("Cards cost 5 euros.", "wh")
        >>> [m["role"] for m in task.request.messages][:3], task.request.messages[-1]["content"]
        (['system', 'user', 'assistant'], 'Sentence: Cards cost 5 euros.')
    """
    system, shots, _ = _KINDS[kind]
    messages: list[dict[str, str]] = [{"role": "system", "content": system}]
    for example, question in shots:
        messages += [{"role": "user", "content": f"Sentence: {example}"},
                     {"role": "assistant", "content": json.dumps({"question": question})}]
    messages.append({"role": "user", "content": f"Sentence: {sentence}"})
    request = JudgeRequest(tuple(messages),
                           max_tokens=MAX_TOKENS, json_schema=question_schema(kind), task=TASK,
                           variables={"sentence": sentence, "kind": kind, **(extra or {})})

    def interpret(value: Any) -> str:
        question = str(value.get("question") or "").strip()
        if not question:
            raise JudgeParseError("no question written")
        return question

    return JsonTask(request, interpret)


def _sentence_case(fact: str) -> str:
    """``fact`` to follow "Yes, ": its first letter lowered unless it starts an acronym or a
    name-like word ("By law" -> "by law", "APR is" stays).

    Example:
        >>> _sentence_case("By law we must."), _sentence_case("APR is 5%."), _sentence_case("I")
        ('by law we must.', 'APR is 5%.', 'I')
    """
    return fact[:1].lower() + fact[1:] if fact[1:2].islower() else fact


def _words(text: str) -> set[str]:
    """Content words of ``text``, a final "s" dropped (``cards`` and ``card`` are one word)."""
    return {w[:-1] if w.endswith("s") else w for w in _WORD.findall(text.lower())
            if len(w) > 3 and w not in STOPWORDS}


#: The worked examples' domain words: a question using one its source lacks copied an example
#: ("Is a lost library card ...?" on a savings passage). Generic words of the examples ("long",
#: "take", "fee") are left out: on the demo corpus they dropped good questions.
EXAMPLE_WORDS = frozenset(("library", "book", "e-book", "borrow", "member",
                           "saturday", "weekday", "pound", "holiday", "download"))


def _check_question(question: str, source: str, must_ask: str | None) -> None:
    """Raise :class:`PlaceholderError` when ``question`` borrows words of the worked examples
    that ``source`` lacks, or ValueError when a "no" question does not ask about the changed
    number ``must_ask`` (its answer would then not be "No").

    Example:
        >>> _check_question("Is a lost library card replaced?", "Cards are replaced.", None)
        Traceback (most recent call last):
        ...
        assay.errors.PlaceholderError: the question copies the prompt's worked example: \
library
        >>> _check_question("Is the fee 5 euros?", "The fee is 4 euros.", "11")
        Traceback (most recent call last):
        ...
        ValueError: the question does not ask about the changed number 11, so its answer is not "No"
    """
    borrowed = sorted((_words(question) & EXAMPLE_WORDS) - _words(source))
    if borrowed:
        raise PlaceholderError(f"the question copies the prompt's worked example: "
                               f"{', '.join(borrowed)}")
    if must_ask is not None and not re.search(rf"(?<![\d.]){re.escape(must_ask)}(?![\d])",
                                              question):
        raise ValueError(f"the question does not ask about the changed number {must_ask}, so "
                         'its answer is not "No"')


def _sentences(chunks: Sequence[Chunk], slots: Sequence[Slot], max_facts: int
               ) -> dict[int, list[str]]:
    needed = sorted({i for s in slots for i in s.chunks})
    return {i: fallback_facts(chunks[i].text, max_facts) or [chunks[i].text] for i in needed}


def write_compact(judge: Judge, chunks: Sequence[Chunk], slots: Sequence[Slot],
                  types: Mapping[str, QueryType], *, max_facts: int, batch_size: int, seed: int,
                  progress: Callable[[int, int], None] | None = None) -> list[Candidate]:
    """Write one question per slot with the compact prompts; returns the candidates in slot
    order (dropped ones with their reason).

    The k-th slot drawn on a chunk takes the chunk's k-th sentence (cycling), so questions on
    one chunk ask about different facts.
    """
    sentences = _sentences(chunks, slots, max_facts)
    used: dict[int, int] = {}
    plans: list[tuple[Slot, str, dict[str, Any], str | None]] = []
    tasks: list[JsonTask] = []
    for slot in slots:
        qtype = types[slot.query_type]
        facts = sentences[slot.chunks[0]]
        turn = used.get(slot.chunks[0], 0)
        used[slot.chunks[0]] = turn + 1
        fact = facts[turn % len(facts)]
        kind = _kind(qtype)
        asked, must_ask = fact, None
        item: dict[str, Any] = {"answer": fact}
        if kind == "yes":
            changed = false_number(fact) if slot.polarity == "no" else None
            if changed is not None:
                asked, must_ask = changed
            word = "No" if changed is not None else "Yes"
            item["answer"] = f"{word}, {_sentence_case(fact)}"
        elif qtype.answer_format == "multiple_choice":
            item["options"] = [fact, *distractors(fact, facts)]
        plans.append((slot, fact, item, must_ask))
        tasks.append(compact_task(asked, kind, extra={"query_type": qtype.name,
                                                      "chunk_id": chunks[slot.chunks[0]].id}))
    outcomes = run_in_batches(judge, tasks, batch_size=batch_size, progress=progress)
    candidates: list[Candidate] = []
    for (slot, fact, item, must_ask), outcome in zip(plans, outcomes, strict=True):
        candidate = Candidate(slot, facts=[fact])
        if not outcome.ok:
            candidate.drop(*outcome_error(outcome))
        else:
            candidate.question = outcome.value  # shown with the drop reason in the report
            try:
                _check_question(outcome.value, chunks[slot.chunks[0]].text, must_ask)
                parsed = parse_item({**item, "question": outcome.value}, types[slot.query_type],
                                    random.Random(seed * 1_000_003 + slot.index))
            except PlaceholderError as exc:
                candidate.drop("placeholder", str(exc))
            except ValueError as exc:
                candidate.drop("malformed", str(exc))
            else:
                candidate.question = parsed["question"]
                candidate.answer = parsed["answer"]
                candidate.options = parsed["options"]
                candidate.correct = parsed["correct"]
        candidates.append(candidate)
    return candidates


# The "scripted" judge's reply to compact requests (a dry run without a model).
TASK_REPLIES.register_lazy(TASK, "assay.generate.scripted:compact_question_reply")

__all__ = ["COMPACT_TYPES", "TASK", "UNSUPPORTED", "compact_task", "compact_types",
           "question_schema", "write_compact"]
