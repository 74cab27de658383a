"""Secret detectors. Test tokens are assembled at run time so the repository holds none."""

from __future__ import annotations

import base64
import json

import pytest

from assay.safety import find_secrets, shannon_entropy

A1 = "A1b2C3d4" * 6  # 48 mixed characters


def kinds(text: str, **kw) -> list[str]:
    return [f.kind for f in find_secrets(text, **kw)]


def _jwt() -> str:
    def enc(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")

    return (
        enc({"alg": "HS256", "typ": "JWT"})
        + "."
        + enc({"sub": "123", "name": "x"})
        + ".sig_"
        + A1[:20]
    )


@pytest.mark.parametrize(
    "token, kind",
    [
        ("sk-" + "proj-" + A1, "OPENAI_API_KEY"),
        ("sk-" + A1, "OPENAI_API_KEY"),
        ("sk-" + "ant-api03-" + A1 + A1[:40], "ANTHROPIC_API_KEY"),
        ("AKIA" + "IOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID"),
        ("ghp_" + A1[:36], "GITHUB_TOKEN"),
        ("github_pat_" + "11ABCDEFG0" + A1 + "_" + A1[:23], "GITHUB_TOKEN"),
        ("xoxb-" + "123456789012-" + A1[:24], "SLACK_TOKEN"),
        ("AIza" + A1[:35], "GOOGLE_API_KEY"),
        ("sk_" + "live_" + A1[:24], "STRIPE_KEY"),
    ],
)
def test_provider_tokens(token: str, kind: str) -> None:
    assert kinds(f"config: {token} end") == [kind]


def test_jwt_needs_a_json_header() -> None:
    assert kinds(f"Bearer {_jwt()}") == ["JWT"]
    fake = "eyJ" + "notjsonatall" + "." + "eyJ" + "abcdefghij" + "." + "abcdefghijkl"
    assert "JWT" not in kinds(fake)


def test_pem_blocks_whole_and_truncated() -> None:
    body = "\n".join([A1[:64]] * 5)
    begin, end = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
    text = f"key:\n{begin}\n{body}\n{end}\nbye"
    found = find_secrets(text)
    assert [f.kind for f in found] == ["PRIVATE_KEY"]
    assert found[0].text.startswith(begin) and found[0].text.endswith(end)
    truncated = find_secrets(f"{begin}\n{body}")
    assert [f.kind for f in truncated] == ["PRIVATE_KEY"] and truncated[0].end > len(begin) + 60
    cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"
    assert kinds(cert) == ["CERTIFICATE"]


@pytest.mark.parametrize(
    "text, value",
    [
        ('db_password = "s3cr3t-Pa55"', "s3cr3t-Pa55"),
        ("PASSWORD: hunter2!", "hunter2!"),
        ("client_secret='abcd1234wxyz'", "abcd1234wxyz"),
        ('{"api_key": "k-987654321"}', "k-987654321"),
        ("The password for admin is Tr0ub4dor&3.", "Tr0ub4dor&3"),
    ],
)
def test_passwords_in_assignments_and_prose(text: str, value: str) -> None:
    found = [f for f in find_secrets(text) if f.kind == "PASSWORD"]
    assert [f.text for f in found] == [value]


@pytest.mark.parametrize(
    "text",
    [
        'password = "********"',
        "password = <your password>",
        "password: ${DB_PASSWORD}",
        "The password is required.",
        "Reset your password in settings.",
    ],
)
def test_password_placeholders_and_prose_ignored(text: str) -> None:
    assert "PASSWORD" not in kinds(text)


def test_windows_product_key() -> None:
    key = "-".join(["VK7JG", "NPHTM", "C97JM", "9MPGT", "3V66T"])
    assert kinds(f"key {key}") == ["WINDOWS_PRODUCT_KEY"]
    assert (
        kinds("code ABCDE-ABCDE-ABCDE-ABCDE-ABCDE") == []
    )  # no digit, A and E not in the alphabet


def test_generic_high_entropy_and_switch() -> None:
    token = "Zq8Xw2Lk9Vb4Nm7Pc1Rt6Ys3Hd5Gf0Ja"
    assert kinds(f"token {token}") == ["HIGH_ENTROPY_SECRET"]
    assert kinds(f"token {token}", generic=False) == []
    assert kinds("sha " + "0123456789abcdef" * 4) == ["HIGH_ENTROPY_SECRET"]
    assert kinds("the account balance_stays_above_the_minimum_threshold") == []
    assert kinds("path /usr/local/lib/python3/site-packages/Module9x") == []


def test_specific_type_wins_over_generic() -> None:
    assert kinds("sk-" + "proj-" + A1) == ["OPENAI_API_KEY"]


def test_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("ab" * 10) == pytest.approx(1.0)


def test_never_raw_in_repr() -> None:
    token = "ghp_" + A1[:36]
    finding = find_secrets(token)[0]
    assert token not in repr(finding) and token not in str(finding.to_dict())


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "hostile",
    [
        "password=" * 20_000,
        "a_" * 50_000 + "password",
        "-----BEGIN PRIVATE KEY-----" * 3000,
        "sk-" * 30_000,
        "eyJ" + "a" * 100_000,
        "x" * 200_000,
        "A" * 100_000,
    ],
)
def test_hostile_inputs_scan_in_bounded_time(hostile: str) -> None:
    find_secrets(hostile)


def test_password_hint_prefilter_passes_every_hinted_text() -> None:
    """The case-folded substring test lets through every text the hint patterns match, including
    the non-ASCII letters that match ASCII ones case-insensitively (ſ, K, İ, ı)."""
    import random

    from assay.safety.secrets import _ASSIGNMENT_HINT, _PROSE_HINT, _password_hints

    pieces = ["pass", "PaSS", "pa\u017fs", "pwd", "PWD", "secret", "SeCReT", "key", "\u212aEY",
              "token", "TOKEN", "\u0130", "\u0131", "_word", "x", " ", "\t", "=", ":", "'", '"', "1"]
    rng = random.Random(0)
    hinted = 0
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12)))
        assignment, prose = _password_hints(text)
        if _ASSIGNMENT_HINT.search(text):
            hinted += 1
            assert assignment, text
        if _PROSE_HINT.search(text):
            assert prose, text
    assert hinted > 1_000  # the generator does reach the patterns
    assert _ASSIGNMENT_HINT.search("\u212aEY=1") and _password_hints("\u212aEY=1")[0]
    assert _PROSE_HINT.search("PA\u017fS") and _password_hints("PA\u017fS")[1]
