"""Scripted replies for the fact-check prompts (answered by the ``"scripted"`` judge).

Deterministic and model-free: the claims are the answer's sentences; a claim is first searched
with its own words on the first tool, then judged *supported* when a passage holds at least 60 %
of its content words (and its numbers), *refuted* when a passage shares at least 60 % (and two)
of its other words but none of its numbers, else *not enough evidence*. Used by
``assay.testing.with_test_doubles``, the tests and the docs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from assay.backends.llm.client import Judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import ScriptedJudge, content_words, overlap
from assay.text import split_sentences

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def claims_reply(request: JudgeRequest) -> str:
    """The scripted reply to ``factcheck_claims``: the answer's sentences."""
    v = request.variables
    claims = split_sentences(v["answer"])[: int(v.get("max_claims", 8))]
    return json.dumps({"claims": claims})


def decide(claim: str, evidence: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The heuristic verdict on ``claim`` from passages ``[{"id", "text"}, ...]``.

    Example:
        >>> decide("The fee is 12 euros.", [{"id": "c:1", "text": "The fee is 15 euros."}])
        {'action': 'verdict', 'verdict': 'refuted', 'evidence': ['c:1'], 'reason': 'numbers differ'}
    """
    numbers = set(_NUMBER.findall(claim))
    for item in evidence:
        if overlap(claim, item["text"]) >= 0.6 and numbers <= set(_NUMBER.findall(item["text"])):
            return {"action": "verdict", "verdict": "supported", "evidence": [item["id"]],
                    "reason": "the passage holds the claim's words"}
    for item in evidence:
        words = content_words(claim) - numbers
        shared = len(words & content_words(item["text"]))
        if shared >= 2 and shared >= 0.6 * len(words) \
                and numbers and not numbers & set(_NUMBER.findall(item["text"])):
            return {"action": "verdict", "verdict": "refuted", "evidence": [item["id"]],
                    "reason": "numbers differ"}
    return {"action": "verdict", "verdict": "not_enough_evidence", "evidence": [],
            "reason": "no passage holds the claim"}


def step_reply(request: JudgeRequest) -> str:
    """The scripted reply to ``factcheck_step`` / ``factcheck_verdict``: search the claim's
    words on the first tool once, then :func:`decide`."""
    v = request.variables
    if request.task.startswith("factcheck_step") and not v.get("n_searches") \
            and v.get("tool_names"):
        return json.dumps({"action": "search", "tool": v["tool_names"][0],
                           "query": v["claim"].rstrip(".!?")})
    return json.dumps(decide(v["claim"], list(v.get("evidence", []))))


def scripted_factcheck_judge(**judge_options: Any) -> Judge:
    """A :class:`Judge` around a :class:`ScriptedJudge` answering the fact-check tasks
    (priced at zero unless ``prices`` is given).

    Example:
        >>> judge = scripted_factcheck_judge()
        >>> from assay.agents.factcheck.claims import extract_claims
        >>> judge.complete_json([extract_claims("Fee?", "It costs 12 euros. Cards are free.", 5)]
        ...                     )[0].value
        ['It costs 12 euros.', 'Cards are free.']
    """
    options: dict[str, Any] = {"prices": {"scripted": (0.0, 0.0)}, "concurrency": 2,
                               **judge_options}
    return Judge(ScriptedJudge(), **options)
