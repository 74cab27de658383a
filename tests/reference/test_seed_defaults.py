"""The seed documents' formulas are the defaults of the evaluators named after them, checked
through ``assay evaluate``: token F1 (validation framework), text matching on context and answer
(evaluator catalogue), answer similarity in [0, 1], context relevancy (framework: mean cosine of
the question with each chunk), and secrets (an encoded sentence is not a secret; a key still is).
A condition that does not parse is refused by ``validate`` and ``evaluate``."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from assay.cli.main import cli


def _evaluate(tmp_path: Path, rows: list[dict[str, Any]], *args: str) -> pd.DataFrame:
    tmp_path.mkdir(parents=True, exist_ok=True)
    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    done = CliRunner().invoke(cli, ["evaluate", str(suite), "--out", str(out), *args])
    assert done.exit_code == 0, done.output
    return pd.read_parquet(out / "results.parquet")


def _value(results: pd.DataFrame, case_id: str, metric: str) -> float:
    row = results[(results["case_id"] == case_id) & (results["metric"] == metric)]
    return float(row["value"].iloc[0])


ANSWER, EXPECTED = "The fee of the card rises.", "The annual fee of the card stays."


def test_token_f1_is_the_framework_formula_by_default(tmp_path: Path) -> None:
    rows = [{"id": "f1", "actual_answer": ANSWER, "expected_answer": EXPECTED}]
    # framework: {the, fee, of, card, rises} vs {the, annual, fee, of, card, stays}: 2*4/11
    assert _value(_evaluate(tmp_path, rows, "-e", "token_f1"), "f1", "token_f1") == (
        pytest.approx(8 / 11))
    multiset = _evaluate(tmp_path / "m", rows, "-e", "token_f1", "--param",
                         'token_f1.counting="multiset"')
    assert _value(multiset, "f1", "token_f1") == pytest.approx(10 / 13)  # 0.769
    squad = _evaluate(tmp_path / "s", rows, "-e", "token_f1", "--param",
                      'token_f1.normalization="squad"', "--param", 'token_f1.counting="multiset"')
    assert _value(squad, "f1", "token_f1") == pytest.approx(2 / 3)  # SQuAD drops the articles


def test_text_matching_needs_the_context_and_the_answer(tmp_path: Path) -> None:
    rows = [{"id": "n", "actual_answer": "There were 15,969 complaints.",
             "retrieved_context": ["Complaints fell last year."], "condition": '"15,969"'},
            {"id": "y", "actual_answer": "There were 15,969 complaints.",
             "retrieved_context": ["15,969 complaints were filed."], "condition": '"15,969"'}]
    results = _evaluate(tmp_path, rows, "-e", "text_matching")
    assert _value(results, "n", "text_match_pass") == 0.0  # the context lacks it
    assert _value(results, "n", "text_match_retrieval_failure") == 1.0
    assert _value(results, "y", "text_match_pass") == 1.0
    earlier = _evaluate(tmp_path / "a", rows, "-e", "text_matching", "--param",
                        'text_matching.scope="answer"')
    assert _value(earlier, "n", "text_match_pass") == 1.0


def test_answer_similarity_stays_in_zero_one_on_unrelated_answers(tmp_path: Path) -> None:
    rows = [{"id": str(i), "actual_answer": a, "expected_answer": e} for i, (a, e) in enumerate([
        ("Cats are small mammals.", "The quarterly interest rate is 3%."),
        ("Purple elephants dance.", "Submit the tax form by April."),
        ("The fee is 12 euros.", "It costs 12 euros."),
    ])]
    results = _evaluate(tmp_path, rows, "-e", "emb_answer_similarity")
    values = results[results["metric"].str.startswith("emb_answer")]["value"]
    assert ((values >= 0) & (values <= 1)).all()
    assert _value(results, "2", "emb_answer_similarity") > 0.5


def test_context_relevancy_is_the_mean_question_to_chunk_cosine(tmp_path: Path) -> None:
    from assay.backends.embed import get_embedder

    question = "What is the monthly fee of the Premier account?"
    chunks = ["The Premier account costs 12 euros a month.", "Branches open at nine.",
              "Cards can be frozen in the app."]
    rows = [{"id": "c", "question": question, "retrieved_context": chunks}]
    results = _evaluate(tmp_path, rows, "-e", "emb_context_relevancy")
    vectors = np.asarray(get_embedder().encode([question, *chunks]))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = float((vectors[1:] @ vectors[0]).mean())
    assert _value(results, "c", "emb_context_relevancy") == pytest.approx(expected, abs=1e-3)
    assert _value(results, "c", "emb_context_relevancy") < _value(
        results, "c", "emb_context_relevancy_mean")  # the best sentence, the catalogue's form


def test_an_encoded_sentence_is_not_a_secret_but_a_key_is(tmp_path: Path) -> None:
    prose = base64.b64encode(b"The weather is nice today").decode()
    key = base64.b64encode(bytes(range(7, 250, 9))).decode()  # opaque bytes, high entropy
    rows = [{"id": "prose", "actual_answer": f"Encoded: {prose}"},
            {"id": "key", "actual_answer": f"Use this token: {key}"}]
    results = _evaluate(tmp_path, rows, "-e", "secrets_leakage")
    assert _value(results, "prose", "secret_generation_leak") == 0.0
    assert _value(results, "key", "secret_generation_leak") == 1.0


def _refused(result: Result, suite: Path) -> None:
    assert result.exit_code != 0
    message = str(result.exception)
    assert f"{suite}: row 1, field 'condition'" in message and "regular expression" in message


def test_a_condition_that_does_not_parse_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    row = {"id": "1", "actual_answer": "The fee is 3.", "condition": '"fee" AND (regexp("[")'}
    suite.write_text(json.dumps(row) + "\n", encoding="utf-8")
    _refused(CliRunner().invoke(cli, ["validate", str(suite)]), suite)
    _refused(CliRunner().invoke(cli, ["evaluate", str(suite), "-e", "text_matching", "--out",
                                      str(tmp_path / "run")]), suite)
    assert not (tmp_path / "run").exists()
