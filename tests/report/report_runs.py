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
