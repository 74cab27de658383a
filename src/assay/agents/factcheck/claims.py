"""Fact-check prompts (package data under ``prompts/``), claim extraction and step replies.

Replies are checked for shape (JSON Schema) and meaning (known tool, allowed verdict, non-empty
query); anything else raises :class:`~assay.errors.JudgeParseError`, which the judge client turns
into one retry and then an explicit parse failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.agents.factcheck.tools import ToolCall
from assay.backends.llm.client import JsonTask
from assay.backends.llm.prompts import build_request, load_prompt
from assay.backends.llm.scripted import TASK_REPLIES
from assay.errors import JudgeParseError
from assay.evaluators.judge_tasks import list_schema, object_schema

VERDICTS = ("supported", "refuted", "not_enough_evidence")
CLAIMS_SCHEMA = list_schema("claims")
STEP_SCHEMA = object_schema({
    "action": {"type": "string"},
    "tool": {"type": "string"},
    "query": {"type": "string"},
    "verdict": {"type": "string"},
    "evidence": {"type": "array", "items": {"type": ["string", "integer"]}},
    "reason": {"type": "string"},
}, "action")
#: The package whose ``prompts/`` folder holds the fact-check prompts; the system prompt is the
#: judge evaluators' (``JUDGE_PROMPTS``).
PROMPTS = "assay.agents.factcheck"
JUDGE_PROMPTS = "assay.evaluators"
#: Characters of each passage shown to the judge.
PASSAGE_CHARS = 600



@dataclass(frozen=True)
class Search:
    """The judge asked to search ``tool`` for ``query``."""

    tool: str
    query: str


@dataclass(frozen=True)
class Verdict:
    """The judge's verdict on a claim, citing evidence ids."""

    verdict: str
    evidence: tuple[str, ...] = ()
    reason: str = ""
    unknown_evidence: tuple[str, ...] = field(default=())


def _claims(limit: int) -> Any:
    def interpret(value: Any) -> list[str]:
        claims = [c.strip() for c in value["claims"] if isinstance(c, str) and c.strip()]
        return list(dict.fromkeys(claims))[:limit]

    return interpret


def extract_claims(question: str, answer: str, max_claims: int) -> JsonTask:
    """The checkable claims of ``answer`` (at most ``max_claims``) -> ``list[str]``.

    Example:
        >>> extract_claims("Fee?", "It is 12 euros.", 5).request.task
        'factcheck_claims'
    """
    variables = {"question": question, "answer": answer, "max_claims": str(max_claims)}
    request = build_request("factcheck_claims", variables, CLAIMS_SCHEMA, package=JUDGE_PROMPTS,
                            template=load_prompt("factcheck_claims", PROMPTS))
    return JsonTask(request, _claims(max_claims))


def render_transcript(calls: Sequence[ToolCall]) -> str:
    """The searches so far, as shown to the judge.

    Example:
        >>> from assay.agents.factcheck.tools import Evidence
        >>> print(render_transcript([ToolCall("corpus", "fee", [Evidence("corpus:1", "Fee: 12.")])
        ...                          ]))
        Search 1: corpus("fee")
          [corpus:1] Fee: 12.
        >>> render_transcript([])
        '(none yet)'
    """
    if not calls:
        return "(none yet)"
    lines: list[str] = []
    for n, call in enumerate(calls, start=1):
        lines.append(f'Search {n}: {call.tool}("{call.query}")')
        if call.error is not None:
            lines.append(f"  (the tool failed: {call.error})")
        elif not call.results:
            lines.append("  (no results)")
        for item in call.results:
            text = " ".join(item.text.split())
            text = text if len(text) <= PASSAGE_CHARS else text[: PASSAGE_CHARS - 3] + "..."
            lines.append(f"  [{item.id}] {text}")
    return "\n".join(lines)


def _evidence_ids(calls: Sequence[ToolCall]) -> list[str]:
    return list(dict.fromkeys(e.id for c in calls for e in c.results))


def _step(tools: Sequence[str], seen: Sequence[str], final: bool) -> Any:
    def interpret(value: Any) -> Search | Verdict:
        action = str(value["action"]).strip().lower()
        if action == "search" and not final:
            tool = str(value.get("tool", "")).strip()
            query = " ".join(str(value.get("query", "")).split())
            if tool not in tools:
                raise JudgeParseError(f"tool must be one of {list(tools)}; got {tool!r}")
            if not query:
                raise JudgeParseError("a search needs a non-empty query")
            return Search(tool, query)
        if action != "verdict":
            allowed = "'verdict'" if final else "'search' or 'verdict'"
            raise JudgeParseError(f"action must be {allowed}; got {action!r}")
        verdict = str(value.get("verdict", "")).strip().lower().replace(" ", "_")
        if verdict not in VERDICTS:
            raise JudgeParseError(f"verdict must be one of {list(VERDICTS)}; got {verdict!r}")
        cited = [str(e).strip().strip("[]") for e in value.get("evidence", []) or []]
        known = [e for e in cited if e in seen]
        return Verdict(verdict, tuple(dict.fromkeys(known)), str(value.get("reason", "")),
                       tuple(e for e in cited if e not in seen))

    return interpret


def step_task(question: str, claim: str, tools: Sequence[tuple[str, str]],
              calls: Sequence[ToolCall], steps_left: int, final: bool) -> JsonTask:
    """The next step on ``claim`` -> :class:`Search` or :class:`Verdict` (only a verdict when
    ``final``). ``tools`` are ``(name, description)`` pairs."""
    seen = _evidence_ids(calls)
    variables = {
        "question": question,
        "claim": claim,
        "tools": "\n".join(f"- {name}: {text}" for name, text in tools),
        "transcript": render_transcript(calls),
        "steps_left": str(steps_left),
    }
    task = "factcheck_verdict" if final else "factcheck_step"
    evidence = [e.to_dict() for c in calls for e in c.results]
    request = build_request(task, variables, STEP_SCHEMA, package=JUDGE_PROMPTS,
                            template=load_prompt(task, PROMPTS),
                            extra={"tool_names": [n for n, _ in tools], "evidence": evidence,
                                   "n_searches": len(calls)})
    return JsonTask(request, _step([n for n, _ in tools], seen, final))


# The "scripted" judge's replies to these tasks (tests and docs run the agent without a model).
TASK_REPLIES.register_lazy("factcheck_claims", "assay.agents.factcheck.scripted:claims_reply")
for _task in ("factcheck_step", "factcheck_verdict"):
    TASK_REPLIES.register_lazy(_task, "assay.agents.factcheck.scripted:step_reply")
