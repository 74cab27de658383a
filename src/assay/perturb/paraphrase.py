"""Paraphrases of the question written by an LLM through the judge backend (optional).

The judge is any :data:`assay.backends.llm.JudgeSpec` (a ``provider:model`` string, a dict,
a backend, a callable, or a ready :class:`~assay.backends.llm.Judge` with its cache, retries and
rate limits). All paraphrases of a suite are requested in one concurrent batch in
:meth:`LLMParaphrase.prepare`; a case whose request fails gets no child (logged), never a
made-up one.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Sequence
from typing import Any

from assay.data.case import TestCase
from assay.params import check, check_int
from assay.perturb.base import Perturbation, Variant

logger = logging.getLogger(__name__)

PROMPT = (
    "Rewrite the question below in {n} different way(s). Keep its meaning, the facts it asks "
    "about and its language; change the wording and the sentence structure. Return only the "
    "rewritten question(s), one per line, without numbering or comments.\n\nQuestion: {question}"
)
_BULLET = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")


def parse_paraphrases(text: str, original: str, n: int) -> list[str]:
    """Up to ``n`` distinct paraphrases from a reply, one per line, bullets and quotes removed.

    Example:
        >>> parse_paraphrases('1. "How much is the fee?"\\n2. What does it cost?', "Fee?", 2)
        ['How much is the fee?', 'What does it cost?']
    """
    out: list[str] = []
    for line in text.splitlines():
        candidate = _BULLET.sub("", line).strip().strip("\"'“”").strip()
        if not candidate or candidate.lower() == original.strip().lower() or candidate in out:
            continue
        if candidate.lower().startswith(("here are", "here is", "sure")):
            continue
        out.append(candidate)
        if len(out) == n:
            break
    return out


class LLMParaphrase(Perturbation):
    """Paraphrase the question with an LLM (through the judge backend).

    Args:
        judge: the judge spec (see :func:`assay.backends.llm.make_judge`).
        n: paraphrases per case (children ``<id>~paraphrase-1`` ... when n > 1).
        prompt: template with ``{question}`` and ``{n}``.

    Example:
        >>> p = LLMParaphrase(lambda messages: "How much does the account cost per month?")
        >>> case = TestCase(id="q", question="What is the monthly fee?")
        >>> p.prepare([case])
        >>> p.variants(case, random.Random(0))[0].update["question"]
        'How much does the account cost per month?'
    """

    name = "paraphrase"
    description = "LLM paraphrase through the judge backend"

    def __init__(self, judge: Any = None, n: int = 1, prompt: str = PROMPT) -> None:
        check_int(n, "n", "LLMParaphrase")
        check(
            "{question}" in prompt, "prompt", "LLMParaphrase", "a template with {question}", prompt
        )
        self.judge = judge
        self.n = n
        self.prompt = prompt
        self._found: dict[str, list[str]] = {}

    def prepare(self, cases: Sequence[TestCase]) -> None:
        from assay.backends.llm import JudgeRequest, make_judge
        from assay.errors import BackendError

        judge = make_judge(self.judge)
        asked = [c for c in cases if c.question]
        requests = [
            JudgeRequest(
                ({"role": "user", "content": self.prompt.format(question=c.question, n=self.n)},),
                task="paraphrase",
                variables={"question": c.question, "n": self.n},
            )
            for c in asked
        ]
        self._found = {}
        for case, reply in zip(asked, judge.complete(requests), strict=True):
            if isinstance(reply, BackendError):
                logger.warning("no paraphrase for case %s: %s", case.id, reply)
                continue
            found = parse_paraphrases(reply.text, case.question or "", self.n)
            if not found:
                logger.warning("no usable paraphrase for case %s: %r", case.id, reply.text[:80])
            self._found[case.id] = found

    def variants(self, case: TestCase, rng: random.Random) -> list[Variant]:
        found = self._found.get(case.id, [])
        if self.n == 1:
            return [Variant({"question": q}) for q in found[:1]]
        return [Variant({"question": q}, suffix=str(i + 1)) for i, q in enumerate(found)]
