"""Judge-based evaluation: prompts (package data), tasks, the evaluator base class, BYOP and
dry-run cost estimates. The evaluators themselves live in ``assay.evaluators.judge_*``."""

from assay.judge.base import JudgeEvaluator, context_text, usage_details
from assay.judge.templates import load_prompt, render

__all__ = ["JudgeEvaluator", "context_text", "load_prompt", "render", "usage_details"]
