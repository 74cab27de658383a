"""The :class:`TestCase` model: one question (and, once run, one model's answer to it)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Text fields longer than this (characters) are rejected as almost certainly malformed input.
MAX_FIELD_CHARS = 2_000_000


class TestCase(BaseModel):
    """A single test case.

    ``id`` identifies the question; ``model`` names the system under test that produced
    ``actual_answer``. One suite may hold answers of several models to the same question, so the
    pair ``(id, model)`` is unique within a suite.

    Example:
        >>> case = TestCase(id="q1", question="What is the fee?", relevant_ids=["c1", "c2"])
        >>> case.relevant_ids
        {'c1': 1.0, 'c2': 1.0}
    """

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="forbid", validate_assignment=False, frozen=False)

    id: str = Field(min_length=1)
    model: str | None = None
    question: str | None = None
    expected_answer: str | None = None
    retrieved_context: list[str] | None = None
    context_ids: list[str] | None = None
    relevant_ids: dict[str, float] | None = None
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

    @field_validator("question", "expected_answer", "actual_answer", "condition", mode="after")
    @classmethod
    def _bounded_text(cls, value: str | None) -> str | None:
        if value is not None and len(value) > MAX_FIELD_CHARS:
            raise ValueError(
                f"text is {len(value):,} characters long; the limit is {MAX_FIELD_CHARS:,}"
            )
        return value

    @field_validator("retrieved_context", mode="after")
    @classmethod
    def _bounded_chunks(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            total = sum(len(chunk) for chunk in value)
            if total > MAX_FIELD_CHARS:
                raise ValueError(
                    f"context is {total:,} characters long; the limit is {MAX_FIELD_CHARS:,}"
                )
        return value

    @property
    def key(self) -> tuple[str, str]:
        """The unique key of the case within a suite: ``(id, model or "")``."""
        return (self.id, self.model or "")


#: Names of the fields of :class:`TestCase`, in declaration order.
CASE_FIELDS: tuple[str, ...] = tuple(TestCase.model_fields)
