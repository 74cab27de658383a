"""Network egress: no evaluator opens a connection at run time unless the user opts in.

Every registered evaluator runs with its default models and parameters on a case that has every
field, with ``connect()`` refused for every socket but Unix ones and no opt-in in the environment
(``ASSAY_ALLOW_DOWNLOADS``, ``ASSAY_JUDGE`` unset). Each must either score offline or fail with a
named error at once — without one connection attempt. This covers every backend family with a
default model name: embeddings (bundled MiniLM), NLI (bundled head; HHEM on the Hub only),
classifiers (bundled toxicity; the bias model on the Hub only), language models (bundled
SmolLM2) and the judge (no default: a named error).
"""

from __future__ import annotations

from typing import Any

import pytest

from assay import TestCase, evaluate
from assay.evaluators.registry import evaluator_names

#: GPTScore runs SmolLM2 on every case (about a minute each on two cores); ``lm_perplexity``
#: covers the same backend family here.
_SLOW = {"gptscore_qa", "gptscore_summary", "gptscore_summary_ref", "gptscore_translation"}
#: Evaluators that cannot be built without a parameter naming what to check.
_NEEDS = {"judge_prompt": {"template": "Does the ANSWER state a fee?\nANSWER: {answer}"}}

CASE = TestCase(id="1", model="m", question="What is the fee?", expected_answer="4.50 euros.",
                actual_answer="The fee is 4.50 euros. It is charged monthly.",
                retrieved_context=["The fee is 4.50 euros a month.", "Branches open at 9."],
                context_ids=["a", "b"], relevant_ids={"a": 1.0},
                relevant_context=["The fee is 4.50 euros a month."], condition='"fee"')


@pytest.mark.parametrize("name", [n for n in evaluator_names() if n not in _SLOW])
def test_no_evaluator_connects_anywhere_by_default(name: str, network_attempts: list[Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASSAY_JUDGE", raising=False)
    run = evaluate([CASE], [name], params={name: _NEEDS[name]} if name in _NEEDS else None)
    assert network_attempts == [], f"{name} tried to connect to {network_attempts}"
    errors = run.results[run.results["status"] == "error"]
    assert errors["reason"].str.len().gt(0).all()  # an unmet model is a named error, not silent
    # (a missing extra is such an error too: MissingDependencyError names the pip command)
