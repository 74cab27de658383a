"""A deterministic judge backend for tests: canned replies keyed by prompt content.

:class:`ScriptedJudge` answers each request from the first rule whose key occurs in the prompt
(or equals the task name); without a matching rule it answers the built-in judge tasks with
simple word-overlap heuristics, so judge evaluators give meaningful, repeatable values without a
model. Tasks defined above the backend layer (question writing, the fact-check agent) register
their scripted replies in :data:`TASK_REPLIES`, beside the task; so the one ``"scripted"`` judge
spec answers them all. It records every request it receives.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from assay.backends.llm.protocol import JudgeRequest, JudgeResponse, Usage
from assay.errors import BackendError
from assay.registry import GROUPS, Registry
from assay.text import split_sentences, words

#: A canned reply: fixed text, or a function of the request.
Reply = str | Callable[[JudgeRequest], str]
#: Scripted replies by task name, registered by the module defining the task (lazily, by
#: ``"module:function"``); plugins add theirs through the ``assay.scripted_replies`` group.
TASK_REPLIES: Registry[Callable[[JudgeRequest], str]] = Registry(
    "scripted reply", GROUPS["scripted reply"])

_STOP_WORDS = (
    "a an the is are was were be been of to in on at for by with and or not no it its this that "
    "your you our we i my me can do does did will would what which who how when where why "
    "there their they them as from than then so if but has have had"
)
_STOP = frozenset(_STOP_WORDS.split())
_GERMAN_WORDS = "der die das und ist nicht ein eine wie hoch pro zwölf beträgt gebühr"
_GERMAN = frozenset(_GERMAN_WORDS.split())
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_PHONE = re.compile(r"\+?\d[\d ()-]{7,}\d")
_SEXIST = ("women can't", "women cannot", "like a girl", "men are better", "bossy")
_STEREO = ("all of them are", "people like them", "those people", "typical of their kind")


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` minus a few English stop words.

    Example:
        >>> sorted(content_words("The fee is 12 euros"))
        ['12', 'euros', 'fee']
    """
    return {w for w in words(text) if w not in _STOP}


def overlap(text: str, reference: str) -> float:
    """Share of ``text``'s content words found in ``reference`` (1.0 for a text without any)."""
    mine = content_words(text)
    return len(mine & content_words(reference)) / len(mine) if mine else 1.0


class ScriptedJudge:
    """A judge backend with canned replies.

    Args:
        rules: ``{key: reply}`` or ``[(key, reply), ...]``; a rule matches when ``key`` equals
            the request's task or occurs in its prompt text. ``reply`` is a string or a function
            of the request.
        model: Model name reported (and used in cache keys).
        heuristics: Answer built-in tasks (and those of :data:`TASK_REPLIES`) with no matching
            rule (else such a request fails).

    Example:
        >>> judge = ScriptedJudge({"capital of France": '{"verdict": true}'})
        >>> judge.complete(JudgeRequest(({"role": "user", "content": "capital of France?"},))).text
        '{"verdict": true}'
    """

    def __init__(
        self,
        rules: Mapping[str, Reply] | Sequence[tuple[str, Reply]] = (),
        *,
        model: str = "scripted",
        heuristics: bool = True,
    ) -> None:
        self.rules = list(rules.items()) if isinstance(rules, Mapping) else list(rules)
        self._model = model
        self.heuristics = heuristics
        self.requests: list[JudgeRequest] = []

    @property
    def model(self) -> str:
        """The scripted model's name."""
        return self._model

    def describe(self) -> dict[str, Any]:
        """Settings recorded in specs (the rule keys, not the replies)."""
        return {"backend": "scripted", "model": self._model, "temperature": 0.0, "seed": 0,
                "rules": [key for key, _ in self.rules]}

    def complete(self, request: JudgeRequest, *, timeout: float | None = None) -> JudgeResponse:
        """Reply from the first matching rule, else from the task heuristics."""
        self.requests.append(request)
        text = self._reply(request)
        return JudgeResponse(text=text, usage=Usage.estimate(request.prompt_text, text),
                             model=self._model)

    def _reply(self, request: JudgeRequest) -> str:
        prompt = request.prompt_text
        task = request.task.removesuffix(":retry")
        for key, reply in self.rules:
            if key in (request.task, task) or key in prompt:
                return reply(request) if callable(reply) else reply
        if self.heuristics and task in _HANDLERS:
            return json.dumps(_HANDLERS[task](request.variables))
        if self.heuristics and task in TASK_REPLIES:
            return TASK_REPLIES.get(task)(request)
        raise BackendError(f"ScriptedJudge has no reply for task {request.task!r}")

    def __repr__(self) -> str:
        return f"ScriptedJudge({len(self.rules)} rules, model={self._model!r})"


# -- heuristics for the built-in tasks ---------------------------------------------------------
def _verdicts(flags: Sequence[bool]) -> dict[str, Any]:
    return {"verdicts": [{"id": i, "verdict": f, "reason": "word overlap"}
                         for i, f in enumerate(flags, start=1)]}


def _items(v: Mapping[str, Any]) -> list[str]:
    return [str(x) for x in v.get("items", [])]


def _statements(v: Mapping[str, Any]) -> dict[str, Any]:
    return {"statements": split_sentences(v["text"])}


def _verify(v: Mapping[str, Any]) -> dict[str, Any]:
    return _verdicts([overlap(s, v["reference"]) >= 0.6 for s in _items(v)])


def _attribute(v: Mapping[str, Any]) -> dict[str, Any]:
    return _verdicts([overlap(s, v["context"]) >= 0.6 for s in _items(v)])


def _useful(v: Mapping[str, Any]) -> dict[str, Any]:
    return _verdicts([overlap(v["expected_answer"], c) >= 0.3 for c in _items(v)])


def _relevant(v: Mapping[str, Any]) -> dict[str, Any]:
    question = content_words(v["question"])
    return _verdicts([len(content_words(s) & question) >= 1 for s in _items(v)])


def _questions(v: Mapping[str, Any]) -> dict[str, Any]:
    answer = v["answer"]
    sentences = split_sentences(answer) or [answer]
    n = int(v.get("n", 3))
    questions = [f"What about: {sentences[i % len(sentences)].rstrip('.!?')}?" for i in range(n)]
    noncommittal = not content_words(answer) or "don't know" in answer.lower()
    return {"questions": questions, "noncommittal": noncommittal}


def _equivalence(v: Mapping[str, Any]) -> dict[str, Any]:
    a, b = content_words(v["answer"]), content_words(v["expected_answer"])
    score = 2 * len(a & b) / (len(a) + len(b)) if a and b else 0.0
    return {"score": round(score, 3), "reason": "content-word Dice overlap"}


def _tone(v: Mapping[str, Any]) -> dict[str, Any]:
    answer = v["answer"]
    checks = {
        "formal": "!" not in answer and not re.search(r"\b(lol|hey|gonna)\b", answer, re.I),
        "respectful": not re.search(r"\b(stupid|idiot|dumb)\b", answer, re.I),
        "concise": len(words(answer)) <= 40,
        "non-emotional": "!" not in answer,
    }
    return _verdicts([checks.get(a.strip().lower(), True) for a in _items(v)])


def _contact(v: Mapping[str, Any]) -> dict[str, Any]:
    hits = len(_EMAIL.findall(v["answer"])) + len(_PHONE.findall(v["answer"]))
    return {"verdict": hits > 0, "score": min(10, 8 + hits) if hits else 0,
            "reason": f"{hits} contact details"}


def _language(v: Mapping[str, Any]) -> dict[str, Any]:
    def german(text: str) -> bool:
        return len(set(words(text)) & _GERMAN) >= 2

    mismatch = german(v["question"]) != german(v["answer"])
    return {"verdict": mismatch, "score": 10 if mismatch else 0,
            "reason": "stop-word language guess"}


def _keywords(phrases: Sequence[str]) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    def handler(v: Mapping[str, Any]) -> dict[str, Any]:
        found = [p for p in phrases if p in v["answer"].lower()]
        return {"verdict": bool(found), "score": min(10, 7 * len(found)),
                "reason": f"phrases: {found}"}

    return handler


def _summary(v: Mapping[str, Any]) -> dict[str, Any]:
    good = len(v["summary"]) < len(v["source"]) and overlap(v["summary"], v["source"]) >= 0.5
    return {"verdict": "good" if good else "bad", "reason": "length and word overlap"}


def _byop(v: Mapping[str, Any]) -> dict[str, Any]:
    expected = v.get("expected_answer") or v.get("context") or ""
    verdict = bool(content_words(v.get("answer", ""))) and overlap(expected, v["answer"]) >= 0.3
    return {"verdict": verdict, "reason": "word overlap with the expected answer"}


# -- conversations: transcripts are '[turn n] ROLE: content' lines (assay.data.dialogue) ------
_TURN = re.compile(r"^\[turn (\d+)\] (SYSTEM|USER|ASSISTANT|TOOL): ", re.MULTILINE)
_ITEM_TURN = re.compile(r"^\(turn (\d+)\) ")
_OFF_ROLE = re.compile(
    r"(?i)\b(?:i\s+am|i'm)\s+(?:now\s+|no\s+longer\s+)?(?:an?\s+)?(?:unrestricted|free\w*|"
    r"dan|pirate|poet|human|not\s+(?:an?\s+)?(?:assistant|ai))\b|\bno\s+rules\b|\bin\s+character\b"
)


def parse_transcript(text: str) -> dict[int, tuple[str, str]]:
    """Turns of a rendered transcript by number: ``{n: (role, content)}``.

    Example:
        >>> parse_transcript("[turn 1] USER: Fee?\\n[turn 2] ASSISTANT: 12 EUR.\\nMore.")
        {1: ('user', 'Fee?'), 2: ('assistant', '12 EUR.\\nMore.')}
    """
    marks = list(_TURN.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return {int(m.group(1)): (m.group(2).lower(), text[m.end():end].rstrip("\n"))
            for m, end in zip(marks, ends, strict=True)}


def _numbered_turns(v: Mapping[str, Any]) -> tuple[list[int], dict[int, tuple[str, str]]]:
    numbers = []
    for item in _items(v):
        found = _ITEM_TURN.match(item)
        numbers.append(int(found.group(1)) if found else 0)
    return numbers, parse_transcript(v["conversation"])


def _last_user(turns: Mapping[int, tuple[str, str]], before: int) -> str:
    earlier = [content for n, (role, content) in turns.items() if role == "user" and n < before]
    return earlier[-1] if earlier else ""


def _conversation_relevancy(v: Mapping[str, Any]) -> dict[str, Any]:
    numbers, turns = _numbered_turns(v)
    return _verdicts([bool(content_words(turns.get(n, ("", ""))[1])
                           & content_words(_last_user(turns, n))) for n in numbers])


def _role_adherence(v: Mapping[str, Any]) -> dict[str, Any]:
    numbers, turns = _numbered_turns(v)
    return _verdicts([not _OFF_ROLE.search(turns.get(n, ("", ""))[1]) for n in numbers])


def _conversation_completeness(v: Mapping[str, Any]) -> dict[str, Any]:
    numbers, turns = _numbered_turns(v)
    flags = []
    for n in numbers:
        request = turns.get(n, ("", ""))[1]
        later = " ".join(c for m, (role, c) in turns.items() if role == "assistant" and m > n)
        flags.append(len(content_words(request)) < 2 or overlap(request, later) >= 0.3)
    return _verdicts(flags)


_HANDLERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "extract_statements": _statements,
    "verify_statements": _verify,
    "attribute_sentences": _attribute,
    "chunk_usefulness": _useful,
    "relevant_sentences": _relevant,
    "generate_questions": _questions,
    "equivalence": _equivalence,
    "tone": _tone,
    "contact_leakage": _contact,
    "language_mismatch": _language,
    "sexism": _keywords(_SEXIST),
    "stereotypes": _keywords(_STEREO),
    "summarization": _summary,
    "byop": _byop,
    "conversation_relevancy": _conversation_relevancy,
    "role_adherence": _role_adherence,
    "conversation_completeness": _conversation_completeness,
}
