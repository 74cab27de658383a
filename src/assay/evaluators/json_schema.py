"""JSON parseability and JSON Schema (Draft 2020-12) validation of the actual answer."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Outcome, Status
from assay.evaluators.registry import register
from assay.safety import scrub

#: The key of ``TestCase.metadata`` that may hold a case's own schema.
SCHEMA_KEY = "json_schema"
_MAX_ERRORS = 10


def extract_fenced(text: str) -> str | None:
    """The body of the first fenced code block (```` ```json ```` preferred), or None.

    Example:
        >>> extract_fenced('Here:\\n```json\\n{"a": 1}\\n```\\nDone.')
        '{"a": 1}'
    """
    blocks: list[tuple[str, str]] = []
    position = 0
    while len(blocks) < 100:
        start = text.find("```", position)
        if start < 0:
            break
        line_end = text.find("\n", start + 3)
        if line_end < 0:
            break
        end = text.find("```", line_end + 1)
        if end < 0:
            break
        blocks.append((text[start + 3 : line_end].strip().lower(), text[line_end + 1 : end]))
        position = end + 3
    if not blocks:
        return None
    body = next((b for info, b in blocks if info == "json"), blocks[0][1])
    return body.strip()


@lru_cache(maxsize=256)
def _validator(schema_json: str, check_formats: bool) -> Any:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from jsonschema_specifications import REGISTRY

    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise InvalidInputError(f"invalid JSON Schema (Draft 2020-12): {exc.message}") from None
    checker = Draft202012Validator.FORMAT_CHECKER if check_formats else None
    # The registry holds the published meta-schemas only: without it jsonschema fetches any
    # other "$ref" with urllib (http:// or file:///etc/passwd), and a suite names this schema.
    return Draft202012Validator(schema, format_checker=checker, registry=REGISTRY)


def _schema_text(schema: Mapping[str, Any] | bool | str) -> str:
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"the JSON Schema is not valid JSON: {exc}") from None
    return json.dumps(schema, sort_keys=True)


@register
class JsonSchema(Evaluator):
    """Whether the answer is JSON and, when a schema is given, whether it validates.

    Args:
        schema: A Draft 2020-12 JSON Schema (dict or JSON text). ``{}`` (the default) checks
            parseability only. A case's ``metadata["json_schema"]`` replaces it for that case.
        extract_fenced: Validate the first fenced code block of the answer (```` ```json ````
            preferred) instead of the whole answer, when there is one.
        check_formats: Also check ``format`` keywords (``email``, ``date``, ...).

    Example:
        >>> ev = JsonSchema(schema={"type": "object", "required": ["fee"]})
        >>> r = ev.evaluate([TestCase(id="q", actual_answer='{"cost": 12}')])[0]
        >>> r.outcomes["json_parseable"].value, r.outcomes["json_schema_valid"].value
        (1.0, 0.0)
        >>> r.explanation
        "schema violation at $: 'fee' is a required property"
    """

    name = "json_schema"
    family = "format"
    description = (
        "JSON parseability and JSON Schema (Draft 2020-12) validity of the answer; "
        "the failing path is the explanation."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec("json_parseable", "1 if the answer parses as JSON", threshold=1.0),
        MetricSpec(
            "json_schema_valid",
            "1 if the answer parses and validates against the schema",
            threshold=1.0,
            primary=True,
        ),
    )

    def __init__(
        self,
        schema: Mapping[str, Any] | bool | str | None = None,
        extract_fenced: bool = False,
        check_formats: bool = True,
    ) -> None:
        self.schema = {} if schema is None else schema
        self.extract_fenced = extract_fenced
        self.check_formats = check_formats
        _validator(_schema_text(self.schema), check_formats)  # fail fast on a bad schema

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        out = []
        for case in cases:
            schema = case.metadata.get(SCHEMA_KEY, self.schema)
            try:
                validator = _validator(_schema_text(schema), self.check_formats)
            except InvalidInputError as exc:
                out.append(CaseResult.error(self.metric_names(), f"case {case.id}: {exc}"))
                continue
            out.append(self._score_one(case.actual_answer or "", validator, schema))
        return out

    def _score_one(self, answer: str, validator: Any, schema: Any) -> CaseResult:
        text, source = answer, "answer"
        if self.extract_fenced:
            block = extract_fenced(answer)
            if block is not None:
                text, source = block, "fenced code block"
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            return CaseResult.ok(
                {"json_parseable": 0.0, "json_schema_valid": 0.0},
                f"{source} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                {"source": source, "position": exc.pos},
            )
        except RecursionError:
            return CaseResult.ok(
                {"json_parseable": 0.0, "json_schema_valid": 0.0},
                f"{source} is nested too deeply to parse",
                {"source": source},
            )
        if _schema_text(schema) in ("{}", "true"):
            return CaseResult.ok(
                {"json_parseable": 1.0, "json_schema_valid": 1.0},
                f"{source} is valid JSON (empty schema: parseability only)",
                {"source": source},
            )
        from jsonschema.exceptions import best_match
        from referencing.exceptions import Unresolvable

        try:
            errors = list(validator.iter_errors(document))[: _MAX_ERRORS * 10]
        except Unresolvable as exc:
            reason = (f"the schema's $ref {scrub(str(getattr(exc, 'ref', '')))!r} cannot be "
                      "resolved: only references inside the schema and the published "
                      "meta-schemas are (no file or network access)")
            return CaseResult({"json_parseable": Outcome(Status.OK, 1.0),
                               "json_schema_valid": Outcome(Status.ERROR, None, reason)},
                              reason, {"source": source})
        if not errors:
            return CaseResult.ok(
                {"json_parseable": 1.0, "json_schema_valid": 1.0},
                f"{source} is valid JSON and satisfies the schema",
                {"source": source},
            )
        best = best_match(errors)
        assert best is not None
        listed = [
            {"path": e.json_path, "schema_path": "/".join(map(str, e.schema_path)),
             "message": scrub(e.message)}
            for e in errors[:_MAX_ERRORS]
        ]  # fmt: skip
        return CaseResult.ok(
            {"json_parseable": 1.0, "json_schema_valid": 0.0},
            scrub(f"schema violation at {best.json_path}: {best.message}"),
            {"source": source, "n_errors": len(errors), "errors": listed},
        )
