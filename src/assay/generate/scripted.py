"""Scripted replies for the generation prompts, for :class:`~assay.testing.ScriptedJudge`.

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
_DAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")


def _phrase(fact: str, n_words: int = 6) -> str:
    tokens = fact.rstrip(".!?").split()
    head = " ".join(tokens[:n_words])
    return head[:1].lower() + head[1:]


def _altered(fact: str, step: int = 1) -> str:
    """``fact`` with its first number changed (else with "not" inserted)."""
    match = _NUMBER.search(fact)
    if match:
        value = float(match.group(0).replace(",", ""))
        new = f"{value + 7 * step:g}"
        return fact[: match.start()] + new + fact[match.end():]
    return re.sub(r"\b(is|are|can|will|must)\b", r"\1 not", fact, count=1)


def _facts(variables: Mapping[str, Any]) -> list[list[str]]:
    lists = variables.get("fact_lists") or [[t] for t in variables.get("chunk_texts", [])]
    return [list(f) or ["(empty)"] for f in lists]


def _item(kind: str, fmt: str, facts: Sequence[list[str]], i: int, polarity: str | None
          ) -> dict[str, Any]:
    first = facts[0][i % len(facts[0])]
    if kind == "multi_hop" and len(facts) > 1:
        second = facts[1][i % len(facts[1])]
        return {"question": f"What do the documents say about {_phrase(first, 4)} and about "
                            f"{_phrase(second, 4)}?", "answer": f"{first} {second}"}
    if fmt == "unanswerable":
        return {"question": f"Which cryptocurrency wallets are accepted for {_phrase(first, 3)} "
                            "by customers travelling to Antarctica?",
                "answer": "The passage does not mention cryptocurrency wallets or Antarctica."}
    if fmt == "yes_no":
        claim = first if polarity != "no" else _altered(first)
        return {"question": f"Is it true that {_phrase(claim, 40)}?",
                "answer": f"{(polarity or 'yes').capitalize()}, {first}"}
    if fmt == "multiple_choice":
        others = [f for f in facts[0] if f != first][:3]
        step = 1
        while len(others) < 3:
            candidate = _altered(first, step)
            if candidate == first or candidate in others:
                candidate = f"{first.rstrip('.')}, except on {_DAYS[step % len(_DAYS)]}."
            others.append(candidate)
            step += 1
        return {"question": f"Which statement about {_phrase(first, 3)} is correct?",
                "options": [first, *others], "answer": first}
    if kind == "inference":
        return {"question": f"What follows for a customer from the rule that "
                            f"{_phrase(first, 8)}?", "answer": first}
    return {"question": f"What does the policy say about {_phrase(first, 5)}?", "answer": first}


def _write_questions(request: JudgeRequest) -> str:
    v = request.variables
    facts = _facts(v)
    count = int(v.get("n", 1))
    items = [_item(str(v.get("query_type")), str(v.get("answer_format")), facts, i,
                   v.get("polarity")) for i in range(count)]
    return json.dumps({"questions": items})


def _key_facts(request: JudgeRequest) -> str:
    v = request.variables
    return json.dumps({"facts": fallback_facts(str(v["passage"]), int(v.get("max_facts", 8)))})


def generation_rules() -> list[tuple[str, Reply]]:
    """Rules answering the ``key_facts`` and ``write_questions`` tasks.

    Example:
        >>> judge = ScriptedJudge(generation_rules())
        >>> from assay.generate.chunking import Chunk
        >>> from assay.generate.questions import key_facts_task
        >>> chunk = Chunk("d#1", "d", "d.md", 0, 35, "The fee is 5 euros. Cards are free.", (0, 2))
        >>> judge.complete(key_facts_task(chunk).request).text
        '{"facts": ["The fee is 5 euros.", "Cards are free."]}'
    """
    return [("key_facts", _key_facts), ("write_questions", _write_questions)]


def scripted_generation_judge(extra_rules: Sequence[tuple[str, Reply]] = ()) -> Judge:
    """A :class:`Judge` around a :class:`ScriptedJudge` answering the generation prompts
    (``extra_rules`` are matched first; e.g. a rule returning malformed output)."""
    backend = ScriptedJudge([*extra_rules, *generation_rules()], model="scripted-generator")
    return Judge(backend, prices={"scripted-generator": (0.0, 0.0)}, concurrency=2)
