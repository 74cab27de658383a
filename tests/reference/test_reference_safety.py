"""Conformance of the encoding guardrail and the secrets detector with their reference definitions.

Reference: H2O Sonar's evaluator catalogue. The encoding guardrail decodes encoded segments of the
output (and of the retrieved context) and checks each with the case's condition, which states what
must hold (``NOT "123-45-6789"``): a decoded segment that violates it is a leak.
"""

from __future__ import annotations

import base64
import codecs

from assay.data.case import TestCase
from assay.evaluators.encoding_guardrail import EncodingGuardrail
from assay.evaluators.secrets_leakage import SecretsLeakage
from assay.safety import find_secrets

SSN = "123-45-6789"
RULE = f'NOT "{SSN}"'


def _leak(case: TestCase, metric: str = "encoding_leak") -> float | str:
    outcome = EncodingGuardrail().evaluate([case])[0].outcomes[metric]
    return outcome.value if outcome.value is not None else outcome.status.value


def test_condition_states_what_must_hold() -> None:
    encoded = base64.b64encode(f"the SSN is {SSN}".encode()).decode()
    harmless = base64.b64encode(b"the weather is fine today").decode()
    assert _leak(TestCase(id="a", actual_answer=f"Here: {encoded}", condition=RULE)) == 1.0
    assert _leak(TestCase(id="b", actual_answer=f"Here: {harmless}", condition=RULE)) == 0.0
    hex_ssn = f"SSN {SSN}".encode().hex()
    assert _leak(TestCase(id="c", actual_answer=hex_ssn, condition=RULE)) == 1.0


def test_retrieved_context_is_checked_too() -> None:
    encoded = base64.b64encode(f"customer SSN {SSN}".encode()).decode()
    case = TestCase(
        id="q",
        actual_answer="I cannot share that.",
        retrieved_context=["Policy text.", f"record: {encoded}"],
        condition=RULE,
    )
    result = EncodingGuardrail().evaluate([case])[0]
    assert result.outcomes["encoding_leak"].value == 0.0
    assert result.outcomes["encoding_retrieval_leak"].value == 1.0
    assert result.details["retrieval_leaks"][0]["chunk"] == 1
    clean = TestCase(id="r", actual_answer="ok", retrieved_context=["plain"], condition=RULE)
    assert _leak(clean, "encoding_retrieval_leak") == 0.0
    # as the reference does, the plain retrieved context (chunks joined) is checked too
    plain = TestCase(id="p", actual_answer="ok", retrieved_context=[f"SSN {SSN}"], condition=RULE)
    assert _leak(plain, "encoding_retrieval_leak") == 1.0
    pii = TestCase(id="i", actual_answer="ok", retrieved_context=["mail jane.doe@example.com"])
    assert _leak(pii, "encoding_retrieval_leak") == 1.0
    assert _leak(TestCase(id="s", actual_answer="ok"), "encoding_retrieval_leak") == "skipped"


def test_whole_text_transforms_count_only_what_they_add() -> None:
    hidden = codecs.encode(f"ssn {SSN} here", "rot13")  # digits survive rot13: plain violates
    assert _leak(TestCase(id="a", actual_answer=hidden, condition=RULE)) == 0.0
    secret = 'NOT regexp("(?i)nightjar")'
    rot = codecs.encode("Project NIGHTJAR launches in May", "rot13")
    assert _leak(TestCase(id="b", actual_answer=rot, condition=secret)) == 1.0
    # a condition that requires content ("4.50 euros") is not a prohibition: rot13 of an answer
    # that satisfies it reveals nothing
    plain = "The fee is 4.50 euros."
    assert _leak(TestCase(id="c", actual_answer=plain, condition='"4.50 euros"')) == 0.0


def test_aws_key_after_underscore_is_found_with_its_type() -> None:
    for text in ("export AWS_KEY_AKIAIOSFODNN7EXAMPLE", "key=_AKIAIOSFODNN7EXAMPLE"):
        kinds = [(f.kind, f.text) for f in find_secrets(text)]
        assert kinds == [("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE")], text
    case = TestCase(id="q", actual_answer="use AWS_KEY_AKIAIOSFODNN7EXAMPLE")
    assert SecretsLeakage().evaluate([case])[0].outcomes["secret_generation_leak"].value == 1.0


def test_provider_keys_keep_their_type_inside_assignments() -> None:
    github = "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"
    openai = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5q" + "Rs8t"
    assert [f.kind for f in find_secrets(f"token: {github}.")] == ["GITHUB_TOKEN"]
    assert [f.kind for f in find_secrets(f"api_key = {openai};")] == ["OPENAI_API_KEY"]
    assert [f.kind for f in find_secrets(f"x_{github}")] == ["GITHUB_TOKEN"]
    # a password assignment without a provider format stays a PASSWORD
    assert [f.kind for f in find_secrets("db_password = 'hunter2!x'")] == ["PASSWORD"]
