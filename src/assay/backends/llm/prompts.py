"""Prompt templates (package data under a package's ``prompts/`` folder) and their rendering: the
one prompt loader of every LLM user (judge evaluators, the fact-check agent, question writing).

Placeholders are ``{name}``; only the names passed in are replaced, in one pass, so braces in JSON
examples and in the rendered values themselves are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from assay.backends.llm.protocol import JudgeRequest
from assay.errors import InvalidInputError


@lru_cache(maxsize=128)
def load_prompt(name: str, package: str) -> str:
    """The text of the prompt ``name`` (without ``.md``) shipped in ``package``'s ``prompts/``.

    Example:
        >>> "{answer}" in load_prompt("sexism", "assay.evaluators")
        True
        >>> "{passage}" in load_prompt("key_facts", "assay.generate")
        True
    """
    path = resources.files(package).joinpath("prompts", f"{name}.md")
    try:
        return path.read_text(encoding="utf-8").strip("\n")
    except FileNotFoundError:
        raise InvalidInputError(f"no prompt named {name!r} in {package}") from None


def placeholders(template: str, names: Sequence[str]) -> set[str]:
    """Which of ``names`` appear as ``{name}`` in ``template``.

    Example:
        >>> sorted(placeholders("Q: {question} A: {answer} {x}", ["question", "answer", "context"]))
        ['answer', 'question']
    """
    return {n for n in names if "{" + n + "}" in template}


def render(template: str, variables: Mapping[str, str]) -> str:
    """Replace ``{name}`` for each name in ``variables``; other braces are kept.

    Example:
        >>> values = {"question": "{answer}?", "answer": "A"}
        >>> render('Q: {question} -> {"score": 1} {answer}', values)
        'Q: {answer}? -> {"score": 1} A'
    """
    if not variables:
        return template
    pattern = re.compile("{(" + "|".join(re.escape(k) for k in variables) + ")}")
    return pattern.sub(lambda m: variables[m.group(1)], template)


def numbered(items: Sequence[str]) -> str:
    """Items as a numbered list, one per line, starting at 1.

    Example:
        >>> print(numbered(["a", "b"]))
        1. a
        2. b
    """
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1))


def build_request(
    task: str,
    variables: Mapping[str, str],
    schema: Mapping[str, Any] | None,
    *,
    package: str,
    template: str | None = None,
    extra: Mapping[str, Any] | None = None,
    max_tokens: int | None = None,
) -> JudgeRequest:
    """A request made of ``package``'s ``system`` prompt and its rendered ``task`` prompt (or an
    explicit ``template``); ``extra`` variables are recorded with the request, not rendered.

    Example:
        >>> request = build_request("key_facts", {"passage": "Fees: 5 eur."}, None,
        ...                         package="assay.generate", extra={"chunk_id": "d#1"})
        >>> request.task, "Fees: 5 eur." in request.messages[1]["content"], request.variables
        ('key_facts', True, {'passage': 'Fees: 5 eur.', 'chunk_id': 'd#1'})
    """
    user = render(template if template is not None else load_prompt(task, package), variables)
    return JudgeRequest(
        messages=(
            {"role": "system", "content": load_prompt("system", package)},
            {"role": "user", "content": user},
        ),
        max_tokens=max_tokens,
        json_schema=schema,
        task=task,
        variables={**variables, **(extra or {})},
    )
