"""Evaluators wired to the deterministic offline backends, for tests and the conformance suite.

Model-based evaluators take their model as a parameter (``embedder``, ``nli``, ``lm``,
``classifier``, ``judge``); every backend family ships a deterministic test backend under the spec
``"fake"`` (the LLM family: ``"scripted"``). :func:`with_test_doubles` fills those parameters, so
an evaluator is checked without any model and without a hook on the production class.
"""

from __future__ import annotations

import inspect
from typing import Any

from assay.backends.llm.client import Judge
from assay.backends.llm.factory import JUDGES
from assay.evaluators.base import Evaluator

#: The test spec of each model parameter's backend family.
TEST_SPECS: dict[str, str] = {"embedder": "fake", "nli": "fake", "lm": "fake", "classifier": "fake"}
#: A ``judge_prompt`` template for bring-your-own-prompt evaluators registered without one.
EXAMPLE_TEMPLATE = "Does the ANSWER answer the QUESTION?\nQUESTION: {question}\nANSWER: {answer}"


def scripted_judge() -> Judge:
    """A new judge of the ``"scripted"`` spec (the heuristic
    :class:`~assay.backends.llm.scripted.ScriptedJudge`, priced at zero), not shared with other
    callers, so a test may read the requests its backend recorded.

    Example:
        >>> scripted_judge().model
        'scripted'
    """
    return JUDGES.build("scripted")


def with_test_doubles(cls: type[Evaluator], **params: Any) -> Evaluator:
    """An instance of ``cls`` whose model parameters name the deterministic test backends.

    Args:
        cls: a registered evaluator class.
        **params: further constructor arguments (they win over the test doubles).

    Example:
        >>> from assay.evaluators import evaluator_class
        >>> with_test_doubles(evaluator_class("emb_answer_similarity")).embedder
        'fake'
    """
    accepted = inspect.signature(cls).parameters
    kwargs: dict[str, Any] = {k: v for k, v in TEST_SPECS.items() if k in accepted}
    if "judge" in accepted:
        kwargs["judge"] = scripted_judge()
    if "weights" in accepted and "nli" in accepted:  # SummaC-Conv: seeded random Conv weights
        from assay.backends.tiny_models import summac_conv_weights

        kwargs["weights"] = str(summac_conv_weights(n_bins=23))
    if "template" in accepted and getattr(cls, "template_default", "") is None:
        kwargs["template"] = EXAMPLE_TEMPLATE
    return cls(**{**kwargs, **params})
