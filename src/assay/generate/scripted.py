"""Scripted replies for the generation prompts (answered by the ``"scripted"`` judge).

Deterministic and model-free: the key facts are the chunk's sentences, and questions are built
from them with fixed templates. Used by the tests, by ``assay generate --judge scripted`` (a dry
run of the whole pipeline without a model) and by the docs' examples.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from assay.backends.llm.client import Judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import Reply, ScriptedJudge
from assay.generate.falsify import distractors, falsified, phrase
from assay.generate.questions import fallback_facts


def _facts(variables: Mapping[str, Any]) -> list[list[str]]:
    lists = variables.get("fact_lists") or [[t] for t in variables.get("chunk_texts", [])]
    return [list(f) or ["(empty)"] for f in lists]


def _item(kind: str, fmt: str, facts: Sequence[list[str]], i: int, polarity: str | None
          ) -> dict[str, Any]:
    # Domain-neutral wording: the scripted writer runs on any corpus (not only banking).
    first = facts[0][i % len(facts[0])]
    if kind == "multi_hop" and len(facts) > 1:
        second = facts[1][i % len(facts[1])]
        return {"question": f"What do the documents say about {phrase(first, 4)} and about "
                            f"{phrase(second, 4)}?", "answer": f"{first} {second}"}
    if fmt == "unanswerable":
        return {"question": f"Which version of {phrase(first, 3)} was released on the planet "
                            "Neptune in 1850?",
                "answer": "The passage does not mention any release on Neptune in 1850."}
    if fmt == "yes_no":
        claim = first if polarity != "no" else falsified(first)
        return {"question": f"Is it true that {phrase(claim, 40)}?",
                "answer": f"{(polarity or 'yes').capitalize()}, {first}"}
    if fmt == "multiple_choice":
        return {"question": f"Which statement about {phrase(first, 3)} is correct?",
                "options": [first, *distractors(first, facts[0])], "answer": first}
    if kind == "inference":
        return {"question": f"What follows from the statement that {phrase(first, 8)}?",
                "answer": first}
    return {"question": f"What do the documents say about {phrase(first, 5)}?",
            "answer": first}


def write_questions_reply(request: JudgeRequest) -> str:
    """The scripted reply to a ``write_questions`` request (registered by
    :mod:`assay.generate.questions`)."""
    v = request.variables
    facts = _facts(v)
    count = int(v.get("n", 1))
    items = [_item(str(v.get("query_type")), str(v.get("answer_format")), facts, i,
                   v.get("polarity")) for i in range(count)]
    return json.dumps({"questions": items})


def compact_question_reply(request: JudgeRequest) -> str:
    """The scripted reply to a compact writer's request (:mod:`assay.generate.compact`): a
    template question about the sentence."""
    v = request.variables
    sentence, kind = str(v["sentence"]), str(v["kind"])
    if kind == "yes":
        question = f"Is it true that {phrase(sentence, 40)}?"
    elif kind == "unanswerable":
        question = f"Which version of {phrase(sentence, 3)} was released on the planet Neptune?"
    else:
        question = f"What do the documents say about {phrase(sentence, 5)}?"
    return json.dumps({"question": question})


def key_facts_reply(request: JudgeRequest) -> str:
    """The scripted reply to a ``key_facts`` request: the passage's sentences."""
    v = request.variables
    return json.dumps({"facts": fallback_facts(str(v["passage"]), int(v.get("max_facts", 8)))})


def is_dry_run(judge: Judge) -> bool:
    """Whether ``judge`` is a scripted writer (template questions, no model): a dry run, whose
    report and cases are marked ``dry_run``.

    Example:
        >>> is_dry_run(scripted_generation_judge())
        True
    """
    return isinstance(judge.backend, ScriptedJudge)


def scripted_generation_judge(extra_rules: Sequence[tuple[str, Reply]] = ()) -> Judge:
    """A :class:`Judge` around a :class:`ScriptedJudge` answering the generation prompts, named
    ``scripted-generator`` (``extra_rules`` are matched first; e.g. a rule returning malformed
    output). The ``"scripted"`` judge spec answers them too (the replies are registered).

    Example:
        >>> from assay.corpus.chunking import Chunk
        >>> from assay.generate.questions import key_facts_task
        >>> chunk = Chunk("d#1", "d", "d.md", 0, 35, "The fee is 5 euros. Cards are free.", (0, 2))
        >>> scripted_generation_judge().complete([key_facts_task(chunk).request])[0].text
        '{"facts": ["The fee is 5 euros.", "Cards are free."]}'
    """
    backend = ScriptedJudge(extra_rules, model="scripted-generator")
    return Judge(backend, prices={"scripted-generator": (0.0, 0.0)}, concurrency=2)
