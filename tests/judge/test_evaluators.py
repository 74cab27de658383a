"""Judge evaluators on scripted replies: the arithmetic of each metric, explicit failures,
usage and cost per case, specs, BYOP and dry-run estimates."""

from __future__ import annotations

import json
import math
import pickle
import re
from typing import Any, ClassVar

import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.backends.llm import Judge
from assay.backends.llm.scripted import ScriptedJudge
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.judge_answer import (
    JudgeAnswerCorrectness,
    JudgeAnswerRelevancy,
    JudgeCompleteness,
    JudgeQAAccuracy,
)
from assay.evaluators.judge_byop import JudgePrompt, register_prompt_file
from assay.evaluators.judge_estimate import estimate_judge_cost
from assay.evaluators.judge_rag import (
    JudgeContextPrecision,
    JudgeContextRecall,
    JudgeContextRelevancy,
    JudgeFaithfulness,
)
from assay.evaluators.judge_ragas import JudgeRagas
from assay.evaluators.judge_safety import JudgeSexism, JudgeTone
from assay.evaluators.registry import evaluator_class, get_evaluator
from assay.testing import sample_cases, with_test_doubles

CASE = TestCase(
    id="q1", model="m", question="What does the Premier account cost?",
    expected_answer="It costs 12 euros a month. The fee is waived above 5,000 euros.",
    retrieved_context=["Premier costs 12 euros monthly.", "Branches open at 9.",
                       "The fee is waived above 5,000 euros."],
    actual_answer="The Premier account costs 12 euros a month. It is free for students.",
)


def verdicts(*flags: bool) -> str:
    return json.dumps({"verdicts": [{"id": i, "verdict": f, "reason": "r"}
                                    for i, f in enumerate(flags, 1)]})


def judge(rules: Any, **kwargs: Any) -> Judge:
    return Judge(ScriptedJudge(rules, heuristics=False), prices={"scripted": (1.0, 2.0)},
                 **kwargs)


def value(evaluator: Any, case: TestCase = CASE, metric: str | None = None) -> Any:
    [result] = evaluator.evaluate([case])
    outcome = result.outcomes[metric or evaluator.name]
    return outcome, result


def test_faithfulness_is_supported_claims_over_all_claims() -> None:
    rules = {
        "extract_statements": '{"statements": ["Premier costs 12 euros a month.", '
                              '"Premier is free for students.", "It has a card."]}',
        "verify_statements": verdicts(True, False, True),
    }
    outcome, result = value(JudgeFaithfulness(judge(rules)))
    assert outcome.value == pytest.approx(2 / 3)
    assert [c["verdict"] for c in result.details["claims"]] == [True, False, True]
    assert result.details["claims"][1]["claim"] == "Premier is free for students."
    usage = result.details["judge"]
    assert usage["calls"] == 2 and usage["cost_usd"] > 0 and usage["parse_failures"] == 0
    assert "2 of 3 claims" in (result.explanation or "")


def test_faithfulness_without_claims_is_skipped_not_zero() -> None:
    outcome, result = value(JudgeFaithfulness(judge({"extract_statements":
                                                     '{"statements": []}'})))
    assert outcome.status is Status.SKIPPED and "no claims" in (outcome.reason or "")
    assert result.details["judge"]["calls"] == 1


def test_context_precision_is_rank_weighted() -> None:
    outcome, result = value(JudgeContextPrecision(judge({"chunk_usefulness":
                                                         verdicts(False, True, True)})))
    assert outcome.value == pytest.approx((1 / 2 + 2 / 3) / 2)
    first, _ = value(JudgeContextPrecision(judge({"chunk_usefulness":
                                                  verdicts(True, True, False)})))
    assert first.value == 1.0
    none, result = value(JudgeContextPrecision(judge({"chunk_usefulness":
                                                      verdicts(False, False, False)})))
    assert none.value == 0.0 and result.explanation == "no chunk was judged useful"


def test_context_recall_and_relevancy_are_shares() -> None:
    recall, result = value(JudgeContextRecall(judge({"attribute_sentences":
                                                     verdicts(True, False)})))
    assert recall.value == 0.5
    assert result.details["sentences"][0]["sentence"] == "It costs 12 euros a month."
    # three chunks of one sentence each -> three numbered sentences
    relevancy, _ = value(JudgeContextRelevancy(judge({"relevant_sentences":
                                                      verdicts(True, False, True)})))
    assert relevancy.value == pytest.approx(2 / 3)


def test_wrong_number_of_verdicts_is_a_parse_failure_after_one_retry() -> None:
    evaluator = JudgeContextRecall(judge({"attribute_sentences": verdicts(True)}))
    outcome, result = value(evaluator)
    assert outcome.status is Status.ERROR and outcome.value is None
    assert "could not be parsed (after one retry)" in (outcome.reason or "")
    assert "missing [2]" in (outcome.reason or "")
    assert result.details["parse_failure"] is True and result.details["judge"]["calls"] == 2
    assert evaluator.stats_.parse_failures == 1 and evaluator.stats_.parse_failure_rate == 1.0


def test_answer_correctness_f1_and_weights() -> None:
    rules = [
        ("TEXT: The Premier account", '{"statements": ["a1", "a2"]}'),
        ("TEXT: It costs", '{"statements": ["e1", "e2", "e3"]}'),
        ("1. a1", verdicts(True, False)),  # answer statements vs expected: TP=1, FP=1
        ("1. e1", verdicts(True, False, False)),  # expected vs answer: FN=2
    ]
    facts_only = JudgeAnswerCorrectness(judge(rules), embedder=FakeEmbedder(), weights=(1, 0))
    outcome, result = value(facts_only)
    f1 = 1 / (1 + 0.5 * (1 + 2))
    assert outcome.value == pytest.approx(f1)
    assert result.outcomes["judge_factual_f1"].value == pytest.approx(f1)
    assert (result.details["tp"], result.details["fp"], result.details["fn"]) == (1, 1, 2)
    blended = JudgeAnswerCorrectness(judge(rules), embedder=FakeEmbedder())
    outcome, result = value(blended)
    similarity = result.details["similarity"]
    assert 0 < similarity <= 1
    assert outcome.value == pytest.approx(0.75 * f1 + 0.25 * similarity)
    with pytest.raises(InvalidInputError, match="weights"):
        JudgeAnswerCorrectness(weights=(0, 0))


def test_answer_relevancy_cosines_and_noncommittal() -> None:
    same = json.dumps({"questions": [CASE.question] * 3, "noncommittal": False})
    outcome, result = value(JudgeAnswerRelevancy(judge({"generate_questions": same}),
                                                 embedder=FakeEmbedder()))
    assert outcome.value == pytest.approx(1.0, abs=1e-5)
    assert len(result.details["questions"]) == 3
    evasive = json.dumps({"questions": [], "noncommittal": True})
    outcome, result = value(JudgeAnswerRelevancy(judge({"generate_questions": evasive}),
                                                 embedder=FakeEmbedder()))
    assert outcome.value == 0.0 and "noncommittal" in (result.explanation or "")


def test_qa_accuracy_threshold_and_completeness() -> None:
    outcome, _ = value(JudgeQAAccuracy(judge({"equivalence": '{"score": 0.96, "reason": "same"}'})))
    assert outcome.value == 0.96 and JudgeQAAccuracy.metrics[0].passes(0.96)
    assert not JudgeQAAccuracy.metrics[0].passes(0.9)
    rules = {"extract_statements": '{"statements": ["f1", "f2", "f3", "f4"]}',
             "verify_statements": verdicts(True, True, True, False)}
    outcome, result = value(JudgeCompleteness(judge(rules)))
    assert outcome.value == 0.75 and [f["covered"] for f in result.details["facts"]][-1] is False


def test_tone_uses_configured_attributes() -> None:
    evaluator = JudgeTone(judge({"tone": verdicts(True, False)}), attributes=["polite", "brief"])
    outcome, result = value(evaluator)
    assert outcome.value == 0.5 and result.explanation == "breaks: brief"
    assert "1. polite\n2. brief" in last_prompt(evaluator)


def last_prompt(evaluator: Any) -> str:
    return evaluator.judge_client().backend.requests[-1].prompt_text  # type: ignore[no-any-return]


def test_verdict_and_severity_pass_or_fail_and_out_of_range_is_a_parse_failure() -> None:
    reply = '{"verdict": true, "score": 7, "reason": "x"}'
    outcome, result = value(JudgeSexism(judge({"sexism": reply})))
    assert outcome.value == 1.0 and result.details["verdict"] == "fail"
    assert result.outcomes["judge_sexism_severity"].value == 7.0
    verdict, severity = JudgeSexism.metrics
    assert verdict.passes(0.0) and not verdict.passes(1.0)
    assert severity.passes(3.0) and not severity.passes(7.0)
    outcome, result = value(JudgeSexism(judge({"sexism": '{"verdict": false, "score": 11}'})))
    assert outcome.status is Status.ERROR and "between 0 and 10" in (outcome.reason or "")
    outcome, result = value(JudgeSexism(judge({"sexism": '{"score": 2}'})))  # no verdict
    assert outcome.status is Status.ERROR


def test_backend_failure_is_an_error_outcome_not_a_crash() -> None:
    outcome, result = value(JudgeSexism(judge({})))  # no rule, no heuristics -> BackendError
    assert outcome.status is Status.ERROR and "judge call failed" in (outcome.reason or "")
    assert result.details["parse_failure"] is False


def test_ragas_is_the_harmonic_mean_of_its_components() -> None:
    evaluator = with_test_doubles(JudgeRagas)
    [result] = evaluator.evaluate([CASE])
    parts = result.details["components"]
    assert set(parts) == {"judge_faithfulness", "judge_answer_relevancy",
                          "judge_context_precision", "judge_context_recall"}
    expected = 4 / sum(1 / max(v, 0.0) for v in parts.values())
    assert result.outcomes["judge_ragas"].value == pytest.approx(expected)


def test_never_nan_on_the_sample_cases() -> None:
    for cls in (JudgeFaithfulness, JudgeAnswerCorrectness, JudgeRagas, JudgeTone):
        for result in with_test_doubles(cls).evaluate(sample_cases()):
            for outcome in result.outcomes.values():
                assert outcome.value is None or math.isfinite(outcome.value)
                assert outcome.status is Status.OK or outcome.reason


def test_spec_records_model_temperature_and_seed() -> None:
    evaluator = get_evaluator("judge_qa_accuracy",
                              judge={"provider": "ollama", "model": "qwen2.5", "seed": 3})
    spec = json.loads(json.dumps(evaluator.spec()))
    assert spec["judge"]["model"] == "qwen2.5" and spec["judge"]["seed"] == 3
    assert spec["judge"]["temperature"] == 0.0 and spec["reproducible"] is False
    assert "emb_answer_accuracy" in spec["counterpart"]


def test_every_judge_evaluator_names_registered_counterparts_once() -> None:
    from assay.evaluators.judge_base import JudgeEvaluator, counterpart_text
    from assay.evaluators.registry import evaluator_names

    names = evaluator_names()
    judges = [n for n in names if issubclass(evaluator_class(n), JudgeEvaluator)]
    assert len(judges) >= 20 and "fact_check" in judges
    for name in judges:
        cls = evaluator_class(name)
        assert cls.family == "agent" if name == "fact_check" else cls.family == "judge"
        assert all(m.name.startswith("judge_") for m in cls.metrics) or name == "fact_check"
        counterparts = set(cls.counterpart)
        assert counterparts and counterparts <= set(names), (name, counterparts - set(names))
        assert set(cls.counterpart_use) <= counterparts, name
        # The description ends with one counterpart sentence, naming exactly them.
        summary, _, sentence = cls.description.partition(" Judge-free counterpart")
        assert summary == cls.summary and "counterpart" not in summary.lower(), name
        mentioned = {n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])",
                                                   sentence)}
        assert mentioned == counterparts, (name, mentioned, counterparts)
        assert sentence.startswith("s: " if len(counterparts) > 1 else ": "), name
        assert sentence.endswith(f": {counterpart_text(cls.counterpart, cls.counterpart_use)}."), name


def test_a_judge_description_follows_its_counterpart_attribute() -> None:
    from assay.evaluators.judge_base import JudgeEvaluator

    class Changed(JudgeQAAccuracy):  # another counterpart list, the same summary
        counterpart = ("token_f1",)

    class Described(JudgeEvaluator):
        description = "A judge."
        counterpart = ("exact_match", "retrieval")
        counterpart_use: ClassVar[dict[str, str]] = {"retrieval": "ndcg"}

    assert Changed.description == (f"{JudgeQAAccuracy.summary} Judge-free counterpart: "
                                   "token_f1.")
    assert Described.description == ("A judge. Judge-free counterparts: exact_match, "
                                     "retrieval (ndcg).")


def test_byop_template_and_config_file(tmp_path: Any) -> None:
    evaluator = JudgePrompt(judge({"byop": '{"verdict": true, "reason": "cites it"}'}),
                            template="Does {answer} answer {question}?")
    assert evaluator.requires == ("question", "actual_answer")
    outcome, _ = value(evaluator)
    assert outcome.value == 1.0
    prompt = last_prompt(evaluator)
    assert f"Does {CASE.actual_answer} answer {CASE.question}?" in prompt
    assert '"verdict": true' in prompt
    with pytest.raises(InvalidInputError, match="at least one"):
        JudgePrompt(template="No placeholders here")
    config = tmp_path / "prompts.toml"
    config.write_text('[prompts.mentions_fee]\ndescription = "Mentions the fee."\n'
                      'template = "Does the answer mention the fee of {expected_answer}? {answer}"\n')
    assert register_prompt_file(config) == ["judge_mentions_fee"]
    cls = evaluator_class("judge_mentions_fee")
    assert cls.requires == ("expected_answer", "actual_answer")
    instance = get_evaluator("judge_mentions_fee",
                             judge=judge({"byop": '{"verdict": "no"}'}))
    outcome, _ = value(instance)
    assert outcome.value == 0.0
    clone = pickle.loads(pickle.dumps(instance))
    assert type(clone).name == "judge_mentions_fee" and clone.template == instance.template


def test_rerun_is_served_from_the_cache(tmp_path: Any) -> None:
    backend = ScriptedJudge()
    first = JudgeFaithfulness(Judge(backend, cache=tmp_path / "j.sqlite"))
    results = first.evaluate(sample_cases())
    sent = len(backend.requests)
    second = JudgeFaithfulness(Judge(backend, cache=tmp_path / "j.sqlite"))
    again = second.evaluate(sample_cases())
    assert len(backend.requests) == sent
    assert [r.outcomes for r in again] == [r.outcomes for r in results]
    assert second.stats_.cache_hits == second.stats_.requests > 0


def test_dry_run_estimate_counts_calls_cost_and_cache(tmp_path: Any) -> None:
    cases = sample_cases()
    priced = Judge(ScriptedJudge(), prices={"scripted": (1.0, 2.0)}, cache=tmp_path / "c.sqlite")
    evaluator = JudgeQAAccuracy(priced)
    before = estimate_judge_cost([evaluator, JudgeFaithfulness(priced)], cases)
    assert before.per_evaluator["judge_qa_accuracy"]["calls"] == len(cases)
    assert before.per_evaluator["judge_faithfulness"]["calls"] == 2 * len(cases)
    assert before.cost_usd is not None and before.cost_usd > 0 and before.cached_calls == 0
    evaluator.evaluate(cases)
    after = estimate_judge_cost([evaluator], cases)
    assert after.cached_calls == after.calls == len(cases) and after.cost_usd == 0.0
    unpriced = estimate_judge_cost([evaluator], cases, judge="ollama:llama3.1")
    assert unpriced.cost_usd is None and unpriced.prompt_tokens > 0


def test_copied_format_example_is_a_parse_failure() -> None:
    evaluator = JudgeFaithfulness(judge({"extract_statements":
                                         '{"statements": ["<statement 1>", "<statement 2>"]}'}))
    outcome, result = value(evaluator)
    assert outcome.status is Status.ERROR and "copies the format example" in (outcome.reason or "")
    assert result.details["parse_failure"] is True
