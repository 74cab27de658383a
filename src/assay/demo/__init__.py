"""The bundled banking RAG demo: corpus, suite with three models' answers, human labels."""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib.resources import files
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from assay.evaluators.registry import catalogue, evaluator_class


def demo_dir() -> Path:
    """Folder of the demo's package data."""
    return Path(str(files("assay.demo")))


def demo_suite_path() -> Path:
    """Path of the demo suite (JSONL)."""
    return demo_dir() / "suite.jsonl"


def demo_corpus_dir() -> Path:
    """Folder of the demo's policy documents (one Markdown file per document).

    Example:
        >>> len(list(demo_corpus_dir().glob("*.md")))
        20
    """
    return demo_dir() / "corpus"


def demo_chunks_path() -> Path:
    """Path of the demo's chunks (JSONL: ``id``, ``doc``, ``topic``, ``title``, ``text``)."""
    return demo_dir() / "chunks.jsonl"


def demo_chunks() -> list[dict[str, Any]]:
    """The chunks of the demo corpus, in corpus order; ids look like ``fees-01#2``.

    Example:
        >>> chunks = demo_chunks()
        >>> chunks[0]["id"], sorted(chunks[0])
        ('business-01#1', ['doc', 'id', 'text', 'title', 'topic'])
    """
    with demo_chunks_path().open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def demo_answers() -> list[str]:
    """The demo suite's distinct non-empty answers, in suite order (a bank help desk's; none
    toxic).

    Example:
        >>> answers = demo_answers()
        >>> len(answers), len(set(answers)) == len(answers), all(answers)
        (212, True, True)
    """
    from assay.data.suite import read_suite

    return list(dict.fromkeys(c.actual_answer for c in read_suite(demo_suite_path())
                              if c.actual_answer))


def demo_texts() -> list[str]:
    """The demo suite's distinct texts, in suite order: each case's answer, reference answers
    and retrieved passages (the banking text a benchmark checks for false flags).

    Example:
        >>> texts = demo_texts()
        >>> set(demo_answers()) <= set(texts), len(texts)
        (True, 365)
    """
    from assay.data.suite import read_suite

    return list(dict.fromkeys(
        text for case in read_suite(demo_suite_path())
        for text in (case.actual_answer, *case.references, *(case.retrieved_context or []))
        if text))


def demo_labels_path() -> Path:
    """Path of the demo's human labels (CSV: ``id``, ``model``, ``correct``, ``grounded``, ``quality``).

    The same labels are in the ``labels`` field of the suite's cases.
    """
    return demo_dir() / "labels.csv"


#: Reproducible evaluators that apply to the demo's free-text banking answers (classification,
#: JSON schema, agent and attack evaluators do not: the demo has no labels-as-answers, JSON,
#: artifacts or attacks).
DEMO_EVALUATORS = (
    "token_f1",
    "exact_match",
    "rouge",
    "bleu",
    "text_statistics",
    "looping",
    "retrieval",
    "text_matching",
    "unsupported_facts",
    "pii_leakage",
    "secrets_leakage",
    "encoding_guardrail",
    "perturbation_robustness",
    "emb_groundedness",
    "emb_context_relevancy",
    "emb_answer_relevancy",
    "emb_completeness",
    "emb_answer_accuracy",
    "toxicity",
    "conversation",
    "trajectory",
)
#: The module each optional extra must provide for its evaluators to run.
_EXTRA_MODULES = {"embed": "sentence_transformers", "toxicity": "profanity_check"}


def demo_plan_path() -> Path:
    """Path of the demo's validation plan (TOML)."""
    return demo_dir() / "plan.toml"


def demo_plan() -> tuple[Any, list[str]]:
    """The demo's validation plan restricted to installed evaluators, and those left out.

    Checks none of whose metrics would be produced are dropped.

    Example:
        >>> plan, missing = demo_plan()
        >>> plan.run.suite.name, "token_f1" in plan.run.evaluators
        ('suite.jsonl', True)
    """
    from assay.verdict import load_plan

    plan = load_plan(demo_plan_path())
    chosen, missing = demo_evaluators(plan.run.evaluators)
    if not missing:
        return plan, []
    return with_evaluators(plan, chosen), missing


def with_evaluators(plan: Any, evaluators: Sequence[str]) -> Any:
    """``plan`` run with ``evaluators`` only: each check keeps the metrics they produce (the
    plan's preflight refuses the others), a check with none is dropped.

    Example:
        >>> from assay.verdict import load_plan
        >>> plan = with_evaluators(load_plan(demo_plan_path()), ["token_f1"])
        >>> [(c.name, c.metrics) for c in plan.check]
        [('correct answers', ['token_f1'])]
    """
    produced = {spec.name for name in evaluators for spec in evaluator_class(name).metrics}
    checks = [
        c.model_copy(update={"metrics": [m for m in c.metrics if m in produced]})
        for c in plan.check
        if set(c.metrics) & produced
    ]
    run = plan.run.model_copy(update={"evaluators": list(evaluators)})
    return plan.model_copy(update={"run": run, "check": checks})


def demo_evaluators(names: Sequence[str] = DEMO_EVALUATORS) -> tuple[list[str], list[str]]:
    """The demo's evaluators whose extras are installed, and those left out for a missing extra.

    Example:
        >>> chosen, missing = demo_evaluators()
        >>> "token_f1" in chosen and "token_f1" not in missing
        True
    """
    extras = {row["name"]: row["extra"] for row in catalogue()}
    chosen: list[str] = []
    missing: list[str] = []
    for name in names:
        module = _EXTRA_MODULES.get(extras[name] or "")
        (missing if module and find_spec(module) is None else chosen).append(name)
    return chosen, missing
