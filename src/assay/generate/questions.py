"""Question writing through the judge backend: key facts first, then questions of each type.

For every sampled chunk the judge first lists the chunk's key facts (``key_facts`` prompt); the
questions are then written from the passage(s) and those facts (``questions`` prompt), one
request per group of slots sharing chunks, type and wanted yes/no answer. Prompts are package
data under ``assay/generate/prompts/``. Replies go through :class:`~assay.backends.llm.Judge`,
so they are cached, retried on transient failures and repaired or retried once when they are not
valid JSON. A reply that parses but has unusable items keeps its good items: each bad one becomes
a :class:`Candidate` dropped with the reason (``malformed: ...``), never an exception.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.backends.llm.client import JsonOutcome, JsonTask, Judge
from assay.backends.llm.prompts import build_request, load_prompt, numbered
from assay.backends.llm.scripted import TASK_REPLIES
from assay.corpus.chunking import Chunk
from assay.errors import JudgeParseError, PlaceholderError
from assay.evaluators.judge_tasks import list_schema
from assay.generate.sampling import Slot
from assay.generate.taxonomy import QueryType
from assay.text import split_sentences

#: The package whose ``prompts/`` folder holds the generation prompts.
PROMPTS = "assay.generate"
FACTS_SCHEMA = list_schema("facts")
QUESTIONS_SCHEMA = list_schema("questions", {
    "type": ["object", "string"],
    "properties": {
        "question": {"type": "string"},
        "answer": {"type": "string"},
        "options": {"type": "array", "items": {"type": "string"}},
    },
})
#: Expected answer recorded for unanswerable questions.
UNANSWERABLE_ANSWER = "The documents do not contain this information."
_FORMAT_RULES = {
    "free": "Each answer is one short complete sentence that uses only information from the "
            "passage(s).",
    "yes_no": 'The correct answer to each question must be "{polarity}". Each answer starts with '
              '"{Polarity}" and then states the fact from the passage that decides it.',
    "multiple_choice": 'Give exactly four "options"; exactly one is correct according to the '
                       'passage, and "answer" repeats that option word for word.',
    "unanswerable": 'Each question must NOT be answerable from the passage. Set "answer" to one '
                    "sentence saying which information the passage lacks.",
}
_EXAMPLES = {
    "free": '{"questions": [{"question": "<question>", "answer": "<answer>"}]}',
    "yes_no": '{"questions": [{"question": "<question>", "answer": "<Yes or No, then the '
              'deciding fact>"}]}',
    "multiple_choice": '{"questions": [{"question": "<question>", "options": ["<option 1>", '
                       '"<option 2>", "<option 3>", "<option 4>"], "answer": "<the correct '
                       'option>"}]}',
    "unanswerable": '{"questions": [{"question": "<question>", "answer": "<what the passage '
                    'does not say>"}]}',
}


# -- key facts --------------------------------------------------------------------------------
def fallback_facts(text: str, max_facts: int) -> list[str]:
    """The chunk's sentences, without headings (Markdown ``#`` lines, and short lines that do
    not end like a sentence): the facts used when the judge gives none.

    Example:
        >>> fallback_facts("# Fees\\nSavings accounts\\nThe fee is 5 euros. Cards are free.", 5)
        ['The fee is 5 euros.', 'Cards are free.']
    """
    sentences = [
        s for s in split_sentences(text)
        if not s.lstrip().startswith("#") and (s.rstrip()[-1:] in ".!?" or len(s.split()) > 6)
    ]
    return sentences[:max_facts]


def key_facts_task(chunk: Chunk, *, max_facts: int = 8, max_tokens: int | None = None
                   ) -> JsonTask:
    """Ask for the key facts of ``chunk`` -> ``list[str]``.

    Example:
        >>> chunk = Chunk("d#1", "d", "d.md", 0, 18, "The fee is 5 eur.", (0, 1))
        >>> key_facts_task(chunk).request.variables["passage"]
        'The fee is 5 eur.'
    """
    variables = {"passage": chunk.text, "max_facts": str(max_facts)}
    request = build_request("key_facts", variables, FACTS_SCHEMA, package=PROMPTS,
                            extra={"chunk_id": chunk.id}, max_tokens=max_tokens)

    def interpret(value: Any) -> list[str]:
        facts = [str(f).strip() for f in value["facts"] if isinstance(f, str) and f.strip()]
        if not facts:
            raise JudgeParseError("no facts listed")
        return facts[:max_facts]

    return JsonTask(request, interpret)


# -- questions --------------------------------------------------------------------------------
@dataclass
class Candidate:
    """One generated question (or the failure to generate one) for a slot.

    ``dropped`` holds the reason once the candidate is rejected (``None`` while kept);
    ``detail`` says more; ``scores`` holds the selection measurements.
    """

    slot: Slot
    question: str | None = None
    answer: str | None = None
    options: list[str] | None = None
    correct: str | None = None
    facts: list[str] = field(default_factory=list)
    dropped: str | None = None
    detail: str = ""
    scores: dict[str, float] = field(default_factory=dict)

    def drop(self, reason: str, detail: str = "") -> None:
        """Reject the candidate (the first reason given sticks)."""
        if self.dropped is None:
            self.dropped, self.detail = reason, detail


def _format_key(qtype: QueryType) -> str:
    return "unanswerable" if not qtype.answerable else qtype.answer_format


def questions_task(
    qtype: QueryType,
    chunks: Sequence[Chunk],
    facts: Sequence[Sequence[str]],
    count: int,
    *,
    polarity: str | None = None,
    max_tokens: int | None = None,
) -> JsonTask:
    """Ask for ``count`` questions of ``qtype`` from ``chunks`` and their facts ->
    ``list[dict | str]`` (the raw items; see :func:`parse_item`).

    Example:
        >>> from assay.generate.taxonomy import DEFAULT_TAXONOMY
        >>> chunk = Chunk("d#1", "d", "d.md", 0, 18, "The fee is 5 eur.", (0, 1))
        >>> task = questions_task(DEFAULT_TAXONOMY["yes_no"], [chunk], [["Fee: 5 eur."]], 2,
        ...                       polarity="no")
        >>> 'must be "no"' in task.request.messages[1]["content"]
        True
    """
    fmt = _format_key(qtype)
    if len(chunks) == 1:
        passages = f"PASSAGE:\n{chunks[0].text}"
        listed = numbered(facts[0])
    else:
        passages = "\n\n".join(f"PASSAGE {i}:\n{c.text}" for i, c in enumerate(chunks, 1))
        listed = "\n".join(f"From passage {i}: {fact}"
                           for i, group in enumerate(facts, 1) for fact in group)
    wanted = polarity or "yes"
    variables = {
        "count": str(count),
        "instruction": qtype.instruction,
        "passages": passages,
        "facts": listed,
        "grounding_rule": ("Ask about what the passages do NOT say, while staying on their "
                           "subject." if not qtype.answerable else
                           "Base each question on the key facts; the passage(s) must fully "
                           "answer it."),
        "format_rule": _FORMAT_RULES[fmt].replace("{polarity}", wanted)
                                         .replace("{Polarity}", wanted.capitalize()),
        "example": _EXAMPLES[fmt],
    }
    extra = {"query_type": qtype.name, "answer_format": fmt, "polarity": polarity,
             "chunk_texts": [c.text for c in chunks], "chunk_ids": [c.id for c in chunks],
             "fact_lists": [list(f) for f in facts], "n": count}
    request = build_request("write_questions", variables, QUESTIONS_SCHEMA, package=PROMPTS,
                            template=load_prompt("questions", PROMPTS), extra=extra,
                            max_tokens=max_tokens)

    def interpret(value: Any) -> list[Any]:
        items = [i for i in value["questions"] if isinstance(i, dict | str)]
        if not items:
            raise JudgeParseError("no questions written")
        return items

    return JsonTask(request, interpret)


_YES_NO = re.compile(r"^\W*(yes|no)\b[\s,.:;!-]*", re.IGNORECASE)
#: A template slot such as ``<question>`` or ``<what the passage does not say>``: a small model
#: copying the prompt's example instead of writing a question.
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,80}>")


def _check_no_placeholder(**fields: str) -> None:
    for name, text in fields.items():
        match = _PLACEHOLDER.search(text)
        if match is not None:
            raise PlaceholderError(f"the {name} is the prompt's placeholder {match.group(0)!r}")


def parse_item(item: Any, qtype: QueryType, rng: random.Random) -> dict[str, Any]:
    """Check one generated item and return ``question``, ``answer``, ``options``, ``correct``.

    Raises ValueError saying what is wrong (the candidate is then dropped as ``malformed``), or
    :class:`PlaceholderError` when the question or answer copies a ``<...>`` slot of the
    prompt's example (dropped as ``placeholder``).
    Multiple-choice options are shuffled with ``rng`` (models favour putting the answer first)
    and appended to the question as ``A. ... D.``; ``correct`` is the right letter.

    Example:
        >>> from assay.generate.taxonomy import DEFAULT_TAXONOMY
        >>> parse_item({"question": "Is it free?", "answer": "yes, it is free"},
        ...            DEFAULT_TAXONOMY["yes_no"], random.Random(0))["answer"]
        'Yes, it is free'
    """
    if isinstance(item, str):
        item = {"question": item}
    question = str(item.get("question") or "").strip()
    answer = str(item.get("answer") or "").strip()
    _check_no_placeholder(question=question, answer=answer)
    if len(question.split()) < 3:
        raise ValueError("no question (or fewer than 3 words)")
    if not question.endswith("?"):
        question = question.rstrip(".") + "?"
    fmt = _format_key(qtype)
    out: dict[str, Any] = {"question": question, "answer": answer, "options": None,
                           "correct": None}
    if fmt == "unanswerable":
        out["answer"] = UNANSWERABLE_ANSWER
        out["missing"] = answer
        return out
    if not answer:
        raise ValueError("no answer")
    if fmt == "yes_no":
        match = _YES_NO.match(answer)
        if match is None:
            raise ValueError("a yes/no answer must start with Yes or No")
        word = match.group(1).capitalize()
        rest = answer[match.end():].strip()
        out["answer"] = f"{word}, {rest}" if rest else word
        out["correct"] = word.lower()
    elif fmt == "multiple_choice":
        raw = item.get("options")
        options = [str(o).strip() for o in raw] if isinstance(raw, list) else []
        options = list(dict.fromkeys(o for o in options if o))
        options = [re.sub(r"^[A-Da-d][.)]\s+", "", o) for o in options]
        _check_no_placeholder(**{f"option {i}": o for i, o in enumerate(options, 1)})
        stripped = re.sub(r"^[A-Da-d][.)]\s+", "", answer)
        if not 3 <= len(options) <= 6:
            raise ValueError(f"multiple choice needs 3 to 6 distinct options; got {len(options)}")
        matches = [o for o in options if o.lower() == stripped.lower()]
        if len(matches) != 1:
            raise ValueError("the answer is not exactly one of the options")
        rng.shuffle(options)
        letter = "ABCDEF"[options.index(matches[0])]
        listing = "\n".join(f"{'ABCDEF'[i]}. {o}" for i, o in enumerate(options))
        out.update(question=f"{question}\n{listing}", answer=matches[0], options=options,
                   correct=letter)
    return out


def group_slots(slots: Sequence[Slot]) -> dict[tuple[tuple[int, ...], str, str | None],
                                               list[Slot]]:
    """Slots sharing chunks, type and wanted yes/no answer (one request each), in order.

    Example:
        >>> s = [Slot(0, 0, "factual", (1,)), Slot(1, 0, "factual", (1,)),
        ...      Slot(2, 0, "factual", (2,))]
        >>> [len(g) for g in group_slots(s).values()]
        [2, 1]
    """
    groups: dict[tuple[tuple[int, ...], str, str | None], list[Slot]] = {}
    for slot in slots:
        groups.setdefault((slot.chunks, slot.query_type, slot.polarity), []).append(slot)
    return groups


def outcome_error(outcome: JsonOutcome) -> tuple[str, str]:
    """(reason, detail) of a failed judge outcome: ``parse_failure`` or ``judge_error``."""
    return ("parse_failure" if outcome.parse_failure else "judge_error"), outcome.error or ""


def run_in_batches(
    judge: Judge,
    tasks: Sequence[JsonTask],
    *,
    batch_size: int,
    progress: Callable[[int, int], None] | None = None,
) -> list[JsonOutcome]:
    """``judge.complete_json`` over ``tasks`` in batches, reporting progress after each."""
    out: list[JsonOutcome] = []
    for start in range(0, len(tasks), batch_size):
        out.extend(judge.complete_json(tasks[start:start + batch_size]))
        if progress is not None:
            progress(len(out), len(tasks))
    if progress is not None and not tasks:
        progress(0, 0)
    return out


# The "scripted" judge's replies to these tasks (a dry run of generation without a model).
TASK_REPLIES.register_lazy("key_facts", "assay.generate.scripted:key_facts_reply")
TASK_REPLIES.register_lazy("write_questions", "assay.generate.scripted:write_questions_reply")
