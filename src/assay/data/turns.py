"""Per-turn cases from conversations, so single-turn evaluators score each assistant turn.

Each assistant turn with a preceding user turn becomes a case ``"{id}#turn{n}"`` (``n`` the
1-based position of the assistant turn in the conversation) whose question is the latest user
turn, answer the assistant turn and retrieved context the turn's own. ``metadata`` links it back:
``conversation_id`` and ``turn``; ``model`` is kept, so verdicts group per model as usual.
"""

from __future__ import annotations

from collections.abc import Iterable

from assay.data.case import TestCase


def turn_cases(cases: Iterable[TestCase]) -> list[TestCase]:
    """One case per answered assistant turn of every conversation; other cases are left out.

    Example:
        >>> from assay.data import Turn
        >>> conv = TestCase(id="c", model="bot", turns=[Turn(role="user", content="Fee?"),
        ...     Turn(role="assistant", content="12 EUR.", retrieved_context=["Fee: 12 EUR"])])
        >>> [(c.id, c.question, c.actual_answer, c.metadata) for c in turn_cases([conv])]
        [('c#turn2', 'Fee?', '12 EUR.', {'conversation_id': 'c', 'turn': 2})]
    """
    out: list[TestCase] = []
    for case in cases:
        question: str | None = None
        for number, turn in enumerate(case.turns or [], start=1):
            if turn.role == "user":
                question = turn.content
            elif turn.role == "assistant" and question is not None:
                out.append(
                    TestCase(
                        id=f"{case.id}#turn{number}",
                        model=case.model,
                        question=question,
                        actual_answer=turn.content,
                        retrieved_context=turn.retrieved_context,
                        topic=case.topic,
                        metadata={"conversation_id": case.id, "turn": number},
                    )
                )
    return out
