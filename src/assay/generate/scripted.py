"""Scripted replies for the generation prompts (answered by the ``"scripted"`` judge).

Deterministic and model-free: the key facts are the chunk's sentences, and questions are built
from them with fixed templates. Used by the tests, by ``assay generate --judge scripted`` (a dry
run of the whole pipeline without a model) and by the docs' examples.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from assay.backends.llm.client import Judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import Reply, ScriptedJudge
from assay.generate.questions import fallback_facts

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_VERB = re.compile(r"\b(is|are|was|were|can|will|must|should|does|do|has|have|returns?)\b")


def _phrase(fact: str, n_words: int = 6) -> str:
    tokens = fact.rstrip(".!?").split()
    head = " ".join(tokens[:n_words])
    return head[:1].lower() + head[1:]


def _falsified(fact: str, step: int = 1) -> str:
    """``fact`` made false: its first number changed, else "not" after its first verb, else
    prefixed with "It is not the case that" (``step`` varies the changed number).

    Example:
        >>> _falsified("The limit is 5 items."), _falsified("Lists are mutable.")
        ('The limit is 12 items.', 'Lists are not mutable.')
    """
    match = _NUMBER.search(fact)
    if match:
        value = float(match.group(0).replace(",", ""))
        return f"{fact[: match.start()]}{value + 7 * step:g}{fact[match.end():]}"
    negated = _VERB.sub(r"\1 not", fact, count=1)
    if negated != fact:
        return negated
    return f"It is not the case that {fact[:1].lower()}{fact[1:]}"


def _distractors(first: str, facts: Sequence[str], wanted: int = 3) -> list[str]:
    """``wanted`` distinct false statements for a multiple-choice question whose answer is
    ``first``: the passage's other facts falsified, then ``first`` falsified differently. Never
    a true statement of the passage (four true options would make the question unanswerable).

    Example:
        >>> _distractors("The limit is 5 items.", ["The limit is 5 items.", "Sets are unordered."])
        ['Sets are not unordered.', 'The limit is 12 items.', 'The limit is 19 items.']
    """
    out: list[str] = []
    candidates = [_falsified(f) for f in facts if f != first]
    candidates += [_falsified(first, step) for step in range(1, 2 * wanted + 2)]
    for number, candidate in enumerate(candidates):
        if len(out) == wanted:
            break
        if candidate in facts or candidate in out:
            candidate = f"{first.rstrip('.')} (variant {number + 1} is not stated)."
        if candidate not in facts and candidate not in out:
            out.append(candidate)
    return out


def _facts(variables: Mapping[str, Any]) -> list[list[str]]:
    lists = variables.get("fact_lists") or [[t] for t in variables.get("chunk_texts", [])]
    return [list(f) or ["(empty)"] for f in lists]


def _item(kind: str, fmt: str, facts: Sequence[list[str]], i: int, polarity: str | None
          ) -> dict[str, Any]:
    # Domain-neutral wording: the scripted writer runs on any corpus (not only banking).
    first = facts[0][i % len(facts[0])]
    if kind == "multi_hop" and len(facts) > 1:
        second = facts[1][i % len(facts[1])]
        return {"question": f"What do the documents say about {_phrase(first, 4)} and about "
                            f"{_phrase(second, 4)}?", "answer": f"{first} {second}"}
    if fmt == "unanswerable":
        return {"question": f"Which version of {_phrase(first, 3)} was released on the planet "
                            "Neptune in 1850?",
                "answer": "The passage does not mention any release on Neptune in 1850."}
    if fmt == "yes_no":
        claim = first if polarity != "no" else _falsified(first)
        return {"question": f"Is it true that {_phrase(claim, 40)}?",
                "answer": f"{(polarity or 'yes').capitalize()}, {first}"}
    if fmt == "multiple_choice":
        return {"question": f"Which statement about {_phrase(first, 3)} is correct?",
                "options": [first, *_distractors(first, facts[0])], "answer": first}
    if kind == "inference":
        return {"question": f"What follows from the statement that {_phrase(first, 8)}?",
                "answer": first}
    return {"question": f"What do the documents say about {_phrase(first, 5)}?",
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


def key_facts_reply(request: JudgeRequest) -> str:
    """The scripted reply to a ``key_facts`` request: the passage's sentences."""
    v = request.variables
    return json.dumps({"facts": fallback_facts(str(v["passage"]), int(v.get("max_facts", 8)))})


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
