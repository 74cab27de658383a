"""Bring your own prompt: a true/false judge from a template with ``{question}``,
``{expected_answer}``, ``{context}`` and ``{answer}`` placeholders.

Use ``judge_prompt`` with a ``template`` parameter, or register named prompts from a TOML or
JSON file (:func:`register_prompt_file`, or the ``ASSAY_JUDGE_PROMPTS`` environment variable
holding such files separated by the OS path separator)::

    [prompts.cites_policy]
    description = "The answer cites the policy it relies on."
    template = "Does this answer cite the policy document it relies on? Answer: {answer}"

registers the evaluator and metric ``judge_cites_policy``.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from assay.backends.llm.client import JsonOutcome, JsonTask
from assay.backends.llm.factory import JudgeSpec
from assay.backends.llm.prompts import load_prompt, placeholders
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.judge_one_call import OneCallJudge
from assay.evaluators.judge_tasks import PROMPTS, verdict_task
from assay.evaluators.registry import register

#: Template placeholder -> case field.
PLACEHOLDERS = {
    "question": "question",
    "expected_answer": "expected_answer",
    "context": "retrieved_context",
    "answer": "actual_answer",
}


def _value(case: TestCase, placeholder: str) -> str:
    if placeholder == "context":
        return "\n\n".join(case.retrieved_context or [])
    return str(getattr(case, PLACEHOLDERS[placeholder]) or "")


def _check_template(template: Any, where: str) -> set[str]:
    if not isinstance(template, str) or not template.strip():
        raise InvalidInputError(f"The 'template' parameter of {where} must be a non-empty "
                                f"string; got {template!r} instead.")
    used = placeholders(template, list(PLACEHOLDERS))
    if not used:
        raise InvalidInputError(
            f"The 'template' parameter of {where} must use at least one of "
            f"{{{'}, {'.join(PLACEHOLDERS)}}}; got {template[:80]!r} instead."
        )
    return used


@register
class JudgePrompt(OneCallJudge):
    """A user-written true/false judge prompt (1 when the judge says true).

    The fields a case needs follow from the placeholders the template uses. A reply format
    instruction is appended to the template, so it only has to ask a yes/no question.
    """

    name = "judge_prompt"
    description = (
        "LLM judge with your own true/false prompt ({question}, {expected_answer}, {context}, "
        "{answer} placeholders)."
    )
    counterpart = ("text_matching",)
    counterpart_use: ClassVar[dict[str, str]] = {"text_matching": "condition rules"}
    requires: ClassVar[tuple[str, ...]] = ("actual_answer",)
    metrics = (MetricSpec("judge_prompt", "1 when the judge answers true", threshold=1.0,
                          primary=True),)
    template_default: ClassVar[str | None] = None

    def __init__(self, judge: JudgeSpec = None, template: str | None = None) -> None:
        super().__init__(judge)
        template = template if template is not None else self.template_default
        used = _check_template(template, type(self).__name__)
        self.template = template
        self.requires = tuple(PLACEHOLDERS[p] for p in PLACEHOLDERS if p in used)  # type: ignore[misc]

    def judge_task(self, case: TestCase) -> JsonTask:
        assert self.template is not None
        used = placeholders(self.template, list(PLACEHOLDERS))
        variables = {p: _value(case, p) for p in used}
        return verdict_task("byop", variables,
                            template=self.template + "\n\n" + load_prompt("byop_suffix", PROMPTS))

    def read_reply(self, outcome: JsonOutcome) -> CaseResult:
        verdict, reason = outcome.value
        return CaseResult.ok({self.metrics[0].name: float(verdict)},
                             f"{'true' if verdict else 'false'}: {reason}", {"reason": reason})

    def __reduce__(self) -> Any:
        if type(self) is JudgePrompt:
            return super().__reduce__()
        config = {"name": self.name, "description": self.description,
                  "template": self.template_default, "threshold": self.metrics[0].threshold}
        return (_rebuild, (config, self.__getstate__()))


def _rebuild(config: dict[str, Any], state: dict[str, Any]) -> JudgePrompt:
    cls = prompt_evaluator(config)
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    return obj


def prompt_evaluator(config: Mapping[str, Any]) -> type[JudgePrompt]:
    """Create and register a named prompt evaluator from ``{name, template, description?,
    threshold?}``; its evaluator and metric name is ``judge_<name>``.

    Example:
        >>> cls = prompt_evaluator({"name": "polite", "template": "Is this polite? {answer}"})
        >>> cls.name, cls.requires
        ('judge_polite', ('actual_answer',))
    """
    raw_name = str(config.get("name", "")).strip()
    if not raw_name.replace("_", "").isalnum():
        raise InvalidInputError(f"a judge prompt needs a name of letters, digits and '_'; "
                                f"got {raw_name!r}")
    name = raw_name if raw_name.startswith("judge_") else f"judge_{raw_name}"
    from assay.evaluators.registry import EVALUATORS

    existing = EVALUATORS.get(name) if name in EVALUATORS else None
    template = config.get("template")
    if isinstance(existing, type) and issubclass(existing, JudgePrompt) and \
            existing.template_default == template:
        return existing
    used = _check_template(template, name)
    threshold = float(config.get("threshold", 1.0))
    given = config.get("description")
    description = f"{given} (LLM judge, your prompt)" if given else \
        f"LLM judge with the prompt {raw_name!r}"
    cls = type(
        f"JudgePrompt_{raw_name}",
        (JudgePrompt,),
        {
            "name": name,
            "description": description,
            "template_default": template,
            "requires": tuple(PLACEHOLDERS[p] for p in PLACEHOLDERS if p in used),
            "metrics": (MetricSpec(name, f"1 when the judge answers true: {description}",
                                   threshold=threshold, primary=True),),
            "__module__": __name__,
        },
    )
    setattr(sys.modules[__name__], cls.__name__, cls)
    return register(cls)


def register_prompt_file(path: str | os.PathLike[str]) -> list[str]:
    """Register every prompt of a TOML (``[prompts.NAME]`` tables) or JSON (``{"prompts":
    {NAME: {...}}}``) file; return the evaluator names."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
        data = json.loads(text) if source.suffix == ".json" else tomllib.loads(text)
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"{source}: cannot read judge prompts: {exc}") from None
    prompts = data.get("prompts") if isinstance(data, dict) else None
    if not isinstance(prompts, dict) or not prompts:
        raise InvalidInputError(f"{source}: expected a 'prompts' table of named prompts")
    names = []
    for key, entry in prompts.items():
        if not isinstance(entry, dict):
            raise InvalidInputError(f"{source}: prompt {key!r} must be a table")
        try:
            names.append(prompt_evaluator({"name": key, **entry}).name)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{source}: prompt {key!r}: {exc}") from None
    return names


for _path in filter(None, os.environ.get("ASSAY_JUDGE_PROMPTS", "").split(os.pathsep)):
    register_prompt_file(_path)
