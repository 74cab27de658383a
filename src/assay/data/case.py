"""The :class:`TestCase` model: one question (and, once run, one model's answer to it)."""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay.data.dialogue import Trajectory, Turn

#: Text fields longer than this (characters) are rejected as almost certainly malformed input.
MAX_FIELD_CHARS = 2_000_000
#: Deepest nesting accepted in ``labels`` and ``metadata`` (and any field).
MAX_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")


def model_key(model: object) -> str:
    """The system part of a unit's key: its model's name, ``""`` for a case or label row without
    one (as the run's results and the labeling app hold it).

    Example:
        >>> model_key(None), model_key("rag-v2")
        ('', 'rag-v2')
    """
    # interned: a few systems' names are keys of every label and case (a million of them)
    return "" if model is None else sys.intern(str(model))


def sanity_problem(data: dict[str, Any]) -> str | None:
    """The first value no output could hold faithfully, as ``field: why``; None when all is well.

    Rejected: non-finite numbers (NaN, ±Infinity: a copy of the suite would differ from the input),
    text with lone surrogates (it cannot be written as UTF-8), nesting deeper than
    :data:`MAX_DEPTH`. Iterative, so hostile depth cannot exhaust the stack.

    Example:
        >>> sanity_problem({"latency_s": float("nan")})
        'latency_s: not a finite number'
        >>> sanity_problem({"question": "a" + chr(0xD800) + "b"})
        'question: text with a lone surrogate (not valid Unicode)'
        >>> sanity_problem({"metadata": {"a": [[[]]]}}) is None
        True
    """
    return None if _sound(data) else _first_problem(data)


def _first_problem(data: dict[str, Any]) -> str | None:
    """:func:`sanity_problem`'s walk, naming the path of the first problem it meets."""
    stack: list[tuple[str, Any, int]] = [(str(k), v, 0) for k, v in data.items()]
    while stack:
        path, value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{path}: nested deeper than {MAX_DEPTH} levels"
        why = _unfaithful(value)
        if why is not None:
            return f"{path}: {why}"
        if isinstance(value, dict):
            stack.extend((f"{path}.{k}", v, depth + 1) for k, v in value.items())
        elif isinstance(value, list | tuple):
            stack.extend((f"{path}[{i}]", v, depth + 1) for i, v in enumerate(value))
    return None


def _sound(data: dict[str, Any]) -> bool:
    """Whether :func:`sanity_problem` finds nothing, without naming where (every case is read
    through it: the paths it names were half the cost of reading a suite)."""
    pending: list[tuple[Any, int]] = [(data.values(), 0)]
    while pending:
        values, depth = pending.pop()
        for value in values:
            if depth > MAX_DEPTH or _unfaithful(value) is not None:
                return False
            if isinstance(value, dict):
                pending.append((value.values(), depth + 1))
            elif isinstance(value, list | tuple):
                pending.append((value, depth + 1))
    return True


def _unfaithful(value: Any) -> str | None:
    """Why one value cannot be written back faithfully (None: it can). An ASCII text cannot
    hold a surrogate."""
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if isinstance(value, str) and not value.isascii() and _SURROGATE.search(value):
        return "text with a lone surrogate (not valid Unicode)"
    return None


class TestCase(BaseModel):
    """A single test case.

    ``id`` identifies the question; ``model`` names the system under test that produced
    ``actual_answer``. One suite may hold answers of several models to the same question, so the
    pair ``(id, model)`` is unique within a suite.

    ``sample`` / ``sample_of`` mark one of k answers to the same case (``assay run --repeats``,
    :mod:`assay.data.samples`): the sample's index (from 1) and the id of the case sampled.

    ``expected_answer`` may be given as a list of reference answers: ``expected_answers`` then
    holds all of them and ``expected_answer`` the first (what single-reference evaluators use);
    lexical evaluators (ROUGE, BLEU, token F1, exact match) use every reference by their
    reference's rule (see :attr:`references`).

    Example:
        >>> case = TestCase(id="q1", question="What is the fee?", relevant_ids=["c1", "c2"])
        >>> case.relevant_ids
        {'c1': 1.0, 'c2': 1.0}
        >>> several = TestCase(id="q2", expected_answer=["12 euros", "twelve euros"])
        >>> several.expected_answer, several.references
        ('12 euros', ['12 euros', 'twelve euros'])
    """

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="forbid", validate_assignment=False, frozen=False)

    id: str = Field(min_length=1)
    model: str | None = None
    question: str | None = None
    expected_answer: str | None = None
    expected_answers: list[str] | None = None
    retrieved_context: list[str] | None = None
    context_ids: list[str] | None = None
    relevant_ids: dict[str, float] | None = None
    relevant_context: list[str] | None = None
    actual_answer: str | None = None
    condition: str | None = None
    topic: str | None = None
    query_type: str | None = None
    perturbation: str | None = None
    parent_id: str | None = None
    labels: dict[str, Any] = Field(default_factory=dict)
    latency_s: float | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    metadata: dict[str, Any] = Field(default_factory=dict)
    turns: list[Turn] | None = None
    scenario: str | None = None
    expected_outcome: str | None = None
    trajectory: Trajectory | None = None
    sample: int | None = Field(default=None, ge=1)
    sample_of: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _sane(cls, data: Any) -> Any:
        """Finite numbers, valid Unicode, bounded depth (see :func:`sanity_problem`)."""
        if isinstance(data, dict):
            problem = sanity_problem(data)
            if problem is not None:
                raise ValueError(problem)
        return data

    @model_validator(mode="after")
    def _sample_link(self) -> TestCase:
        """``sample`` and ``sample_of`` go together (see :mod:`assay.data.samples`)."""
        if (self.sample is None) != (self.sample_of is None):
            raise ValueError("sample and sample_of must be given together (or neither)")
        return self

    @model_validator(mode="before")
    @classmethod
    def _several_references(cls, data: Any) -> Any:
        """A list in ``expected_answer`` becomes ``expected_answers`` (its first the answer)."""
        if not isinstance(data, dict):
            return data
        given = data.get("expected_answer")
        several = data.get("expected_answers")
        if isinstance(given, list | tuple):
            if several is not None and list(several) != list(given):
                raise ValueError("expected_answer (a list) and expected_answers differ")
            data = {**data, "expected_answers": list(given)}
            several, given = list(given), None
        if several is None:
            return data
        if not isinstance(several, list | tuple) or not several:
            raise ValueError("expected_answers must be a non-empty list of texts")
        if given is not None and given != several[0]:
            raise ValueError("expected_answer must be the first of expected_answers")
        return {**data, "expected_answer": several[0]}

    @field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        return str(value) if isinstance(value, int) else value

    @field_validator("context_ids", mode="before")
    @classmethod
    def _ids_to_str(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value

    @field_validator("relevant_ids", mode="before")
    @classmethod
    def _relevance_grades(cls, value: Any) -> Any:
        """Accept a list of ids (binary relevance, grade 1) or a mapping id → grade."""
        if isinstance(value, list):
            return {str(v): 1.0 for v in value}
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}
        return value

    @field_validator(
        "question",
        "expected_answer",
        "actual_answer",
        "condition",
        "scenario",
        "expected_outcome",
        mode="after",
    )
    @classmethod
    def _bounded_text(cls, value: str | None) -> str | None:
        if value is not None and len(value) > MAX_FIELD_CHARS:
            raise ValueError(
                f"text is {len(value):,} characters long; the limit is {MAX_FIELD_CHARS:,}"
            )
        return value

    @field_validator("retrieved_context", "expected_answers", "relevant_context", mode="after")
    @classmethod
    def _bounded_chunks(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            total = sum(len(chunk) for chunk in value)
            if total > MAX_FIELD_CHARS:
                raise ValueError(
                    f"the texts are {total:,} characters long; the limit is {MAX_FIELD_CHARS:,}"
                )
        return value

    @field_validator("turns", mode="after")
    @classmethod
    def _bounded_turns(cls, value: list[Turn] | None) -> list[Turn] | None:
        if value is not None:
            total = sum(len(turn.content) for turn in value)
            if total > MAX_FIELD_CHARS:
                raise ValueError(
                    f"the turns are {total:,} characters long; the limit is {MAX_FIELD_CHARS:,}"
                )
        return value

    @property
    def references(self) -> list[str]:
        """Every reference answer: ``expected_answers``, else ``[expected_answer]``, else []."""
        if self.expected_answers:
            return list(self.expected_answers)
        return [] if self.expected_answer is None else [self.expected_answer]

    @property
    def key(self) -> tuple[str, str]:
        """The unique key of the case within a suite: ``(id, model or "")``."""
        return (self.id, self.model or "")

    @property
    def truncated(self) -> str | None:
        """Why the answer is incomplete when the system stopped at its token limit, else None.

        The runner records such an answer with ``metadata["run"]["status"] ==``
        :data:`RUN_TRUNCATED` and the reason in ``metadata["run"]["reason"]``; every evaluator
        of the answer then counts the case as unmeasured (``skipped`` with that reason).

        Example:
            >>> run = {"status": "truncated", "reason": "cut at the token limit"}
            >>> TestCase(id="q", actual_answer="The fee", metadata={"run": run}).truncated
            'cut at the token limit'
        """
        run = self.metadata.get("run")
        if not isinstance(run, dict) or run.get("status") != RUN_TRUNCATED:
            return None
        return str(run.get("reason") or TRUNCATED_REASON)


#: ``metadata["run"]["status"]`` of an answer cut at the system's token limit (see
#: :attr:`TestCase.truncated`); ``"ok"`` and ``"error"`` are the other statuses.
RUN_TRUNCATED = "truncated"
#: The reason recorded with a truncated answer.
TRUNCATED_REASON = (
    "the answer was cut at the system's token limit (finish_reason 'length'): unmeasured"
)

#: Names of the fields of :class:`TestCase`, in declaration order.
CASE_FIELDS: tuple[str, ...] = tuple(TestCase.model_fields)
