"""JsonSchema: parseability, Draft 2020-12 validation, fenced blocks, error paths."""

from __future__ import annotations

import pytest

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.json_schema import JsonSchema, extract_fenced
from assay.testing import check_evaluator

SCHEMA = {
    "type": "object",
    "properties": {
        "fee": {"type": "number"},
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"price": {"type": "number"}}},
        },
        "contact": {"type": "string", "format": "email"},
    },
    "required": ["fee"],
    "additionalProperties": False,
}


def score(answer: str, **params):
    result = JsonSchema(**params).evaluate([TestCase(id="q", actual_answer=answer)])[0]
    return (
        result.outcomes["json_parseable"].value,
        result.outcomes["json_schema_valid"].value,
        result,
    )


def test_empty_schema_checks_parseability_only() -> None:
    assert score('{"anything": [1, 2]}')[:2] == (1.0, 1.0)
    p, v, result = score("not json")
    assert (p, v) == (0.0, 0.0) and "not JSON" in result.explanation
    assert "parseability only" in score("[]")[2].explanation


def test_schema_violation_path_is_the_explanation() -> None:
    p, v, result = score('{"fee": 3, "items": [{"price": 1}, {"price": "x"}]}', schema=SCHEMA)
    assert (p, v) == (1.0, 0.0)
    assert result.explanation == "schema violation at $.items[1].price: 'x' is not of type 'number'"
    assert result.details["errors"][0]["path"] == "$.items[1].price"


def test_valid_document_and_draft_2020_12_keywords() -> None:
    assert score('{"fee": 3}', schema=SCHEMA)[:2] == (1.0, 1.0)
    tuple_schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "number"}],
        "items": False,
    }
    assert score('["a", 1]', schema=tuple_schema)[1] == 1.0
    assert score('["a", 1, 2]', schema=tuple_schema)[1] == 0.0


def test_format_checking_and_masking_of_values() -> None:
    _, v, result = score('{"fee": 1, "contact": "not-an-email"}', schema=SCHEMA)
    assert v == 0.0 and "email" in result.explanation
    _, v, result = score('{"fee": "4111111111111111"}', schema=SCHEMA)
    assert v == 0.0 and "4111111111111111" not in result.explanation + str(result.details)
    assert score('{"fee": 1, "contact": "x"}', schema=SCHEMA, check_formats=False)[1] == 1.0


def test_fenced_extraction() -> None:
    answer = 'Sure!\n```python\nprint(1)\n```\nand\n```json\n{"fee": 2}\n```\nbye'
    assert extract_fenced(answer) == '{"fee": 2}'
    assert score(answer, schema=SCHEMA)[0] == 0.0
    p, v, result = score(answer, schema=SCHEMA, extract_fenced=True)
    assert (p, v) == (1.0, 1.0) and result.details["source"] == "fenced code block"
    assert (
        score('{"fee": 2}', schema=SCHEMA, extract_fenced=True)[1] == 1.0
    )  # no fence: whole answer
    assert extract_fenced("```\n[1]\n```") == "[1]"


def test_schema_from_case_metadata_and_errors() -> None:
    case = TestCase(id="q", actual_answer="[1]", metadata={"json_schema": {"type": "object"}})
    assert JsonSchema().evaluate([case])[0].outcomes["json_schema_valid"].value == 0.0
    bad = TestCase(id="q", actual_answer="[1]", metadata={"json_schema": {"type": 12}})
    outcome = JsonSchema().evaluate([bad])[0].outcomes["json_schema_valid"]
    assert outcome.status is Status.ERROR and "invalid JSON Schema" in outcome.reason
    with pytest.raises(InvalidInputError, match="invalid JSON Schema"):
        JsonSchema(schema={"type": "nonsense"})
    assert score('{"fee": 1}', schema='{"required": ["fee"]}')[1] == 1.0


def test_deeply_nested_json_does_not_crash() -> None:
    p, _, _ = score("[" * 100_000 + "]" * 100_000)
    assert p in (0.0, 1.0)


def test_conformance() -> None:
    check_evaluator(JsonSchema(schema=SCHEMA, extract_fenced=True))
    check_evaluator(JsonSchema())
