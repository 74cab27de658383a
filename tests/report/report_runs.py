"""A small run with everything the report shows: several models, slices, perturbations, evidence."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import assay
from assay import CaseResult, Evaluator, MetricSpec, TestCase
from assay.rundir.run import EvaluationRun
from assay.text import split_sentences

SCRIPT_ANSWER = "<script>window.__pwned = 1; document.title = 'PWNED';</script><img src=x onerror=\"window.__pwned = 2\"> 12 euros."


class WordOverlapGrounding(Evaluator):
    """Test-only evaluator: per answer sentence, the share of its words found in the context."""

    name = "test_grounding"
    family = "test"
    description = "word overlap of each answer sentence with the context"
    metrics = (
        MetricSpec("test_groundedness", "min sentence overlap", threshold=0.5, primary=True),
    )
    requires = ("actual_answer", "retrieved_context")

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        out = []
        for case in cases:
            context = set(" ".join(case.retrieved_context or []).lower().split())
            sentences = split_sentences(case.actual_answer or "") or [case.actual_answer or ""]
            scores = []
            for sentence in sentences:
                words = sentence.lower().split()
                scores.append(sum(w in context for w in words) / len(words) if words else 0.0)
            worst = min(range(len(scores)), key=scores.__getitem__)
            out.append(
                CaseResult.ok(
                    {"test_groundedness": min(scores)},
                    explanation=f"least grounded: {sentences[worst]!r}",
                    details={
                        "least_grounded_sentence": sentences[worst],
                        "sentences": [
                            {"sentence": s, "score": v}
                            for s, v in zip(sentences, scores, strict=True)
                        ],
                    },
                )
            )
        return out


def report_cases(n: int = 24, seed: int = 0) -> list[TestCase]:
    rng = random.Random(seed)
    topics, qtypes = ("fees", "cards", "loans"), ("factual", "how-to")
    cases = []
    for i in range(n):
        topic, qtype = topics[i % 3], qtypes[i % 2]
        context = [f"The {topic} fee is {i} euros a month.", "Support is open every day."]
        for model, p in (("alpha", 0.85), ("beta", 0.2 if topic == "loans" else 0.7)):
            good = rng.random() < p
            answer = (
                f"The {topic} fee is {i} euros a month."
                if good
                else (f"The {topic} fee is {i} euros. Call our premium hotline for a refund.")
            )
            if i == 1 and model == "beta":
                answer = SCRIPT_ANSWER
            cases.append(
                TestCase(
                    id=f"q{i}",
                    model=model,
                    question=f"What is the {topic} fee?",
                    expected_answer=f"{i} euros a month.",
                    actual_answer=answer,
                    retrieved_context=context,
                    topic=topic,
                    query_type=qtype,
                )
            )
    for i in range(6):  # perturbed copies of the first cases
        for model in ("alpha", "beta"):
            parent = next(c for c in cases if c.id == f"q{i}" and c.model == model)
            cases.append(
                parent.model_copy(
                    update={
                        "id": f"q{i}-typo",
                        "perturbation": "typos",
                        "parent_id": f"q{i}",
                        "question": parent.question.replace("fee", "fe"),
                    }
                )
            )
    return cases


def build_run(out: Path) -> EvaluationRun:
    return assay.evaluate(
        report_cases(), [WordOverlapGrounding(), "token_f1", "exact_match"], out=out, overwrite=True
    )


#: Hostile text inside a conversation turn and a tool result (shown, never run).
SCRIPT_TURN = "<script>window.__pwnedTurn = 1;</script><img src=x onerror=\"window.__pwnedTurn = 2\">"
#: Turns of the long conversation; its assistant turn LONG_OFFENDING changes the user's amount.
LONG_TURNS, LONG_OFFENDING = 200, 150


def dialogue_cases() -> list[TestCase]:
    """A conversation naming an offending turn (with hostile text in a turn and a tool result)
    and its per-turn cases, a 200-turn conversation offending late, and an agent trajectory with
    an unrecovered error."""
    from assay.data import ToolCall, Trajectory, Turn

    loan = [
        Turn(role="system", content="You are a bank assistant."),
        Turn(role="user", content=f"I took a loan of 5,000 euros on 12 March. {SCRIPT_TURN}"),
        Turn(role="assistant", content="Thanks, a loan of 5000 euros taken in March."),
        Turn(role="user", content="What rate applies?"),
        Turn(role="assistant", content="The rate is 4.5% on your 5,000 euros.",
             retrieved_context=["Personal loans: 4.5% APR."]),
        Turn(role="user", content="So what is my monthly payment?"),
        Turn(role="assistant", content="On your 6,000 euros loan it is 250 euros.",
             tool_calls=[ToolCall(name="annuity", arguments={"principal": 5000, "note": SCRIPT_TURN},
                                  result=250)]),
    ]
    long = [Turn(role="user", content="My card limit is 2,000 euros.")]
    for n in range(2, LONG_TURNS + 1):
        if n % 2:
            long.append(Turn(role="user", content=f"Question {n}: is my limit still the same?"))
        else:
            amount = "3,000" if n == LONG_OFFENDING else "2,000"
            long.append(Turn(role="assistant", content=f"Yes, your limit is {amount} euros."))
    trajectory = Trajectory(
        steps=[
            ToolCall(name="fx_rate", arguments={"pair": "EURUSD"}, error="timeout"),
            ToolCall(name="fx_rate", arguments={"pair": "EURUSD"}, error="timeout"),
            ToolCall(name="convert", arguments={"amount": 100, "rate": 1.08}, result=108.0),
        ],
        final_answer="100 EUR is 108 USD.",
        expected_tools=[ToolCall(name="fx_rate", arguments={"pair": "EURUSD"}),
                        ToolCall(name="convert")],
    )
    from assay.data.turns import turn_cases

    conversation = TestCase(id="conv-loan", model="bot", turns=loan, question=loan[-2].content,
                            actual_answer=loan[-1].content, scenario="A customer asks about a loan.")
    return [
        conversation,
        *turn_cases([conversation]),  # its per-turn cases: turn 5's answer is poorly grounded
        TestCase(id="conv-long", model="bot", turns=long),
        TestCase(id="agent-fx", model="bot", trajectory=trajectory, question="100 EUR in USD?",
                 expected_outcome="108 USD"),
    ]


def build_dialogue_run(out: Path) -> EvaluationRun:
    return assay.evaluate(dialogue_cases(), ["conversation", "trajectory", WordOverlapGrounding()],
                          out=out, overwrite=True)
