"""PII detectors: each entity type, validators rejecting look-alikes, masking and input bounds."""

from __future__ import annotations

import pytest

from assay.errors import InvalidInputError
from assay.safety import PII_TYPES, Finding, find_pii
from assay.safety.checksums import iban_valid, luhn_valid, ssn_valid


def kinds(text: str) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in find_pii(text)]


@pytest.mark.parametrize(
    "text, value",
    [
        ("pay with 4111 1111 1111 1111 today", "4111 1111 1111 1111"),
        ("card 4111-1111-1111-1111.", "4111-1111-1111-1111"),
        ("amex 378282246310005", "378282246310005"),
        ("maestro 503890547220 lost", "503890547220"),  # 12 digits
        ("visa19 4735615260219382870", "4735615260219382870"),
    ],
)
def test_credit_cards(text: str, value: str) -> None:
    assert kinds(text) == [("CREDIT_CARD", value)]


@pytest.mark.parametrize(
    "text",
    [
        "order 4111 1111 1111 1112",  # Luhn fails
        "id 0000000000000000",  # Luhn-valid but constant
        "long 41111111111111110000000",  # too long
        "ref 4111111111111111-7",  # glued to more digits
    ],
)
def test_card_look_alikes_rejected(text: str) -> None:
    assert not any(k == "CREDIT_CARD" for k, _ in kinds(text))


def test_ssn() -> None:
    assert kinds("SSN 123-45-6789.") == [("US_SSN", "123-45-6789")]
    assert kinds("my ssn is 123456789") == [("US_SSN", "123456789")]
    assert kinds("order 123456789 shipped") == []  # bare digits without an SSN cue
    for invalid in ("000-12-3456", "666-12-3456", "912-12-3456", "123-00-4567", "123-45-0000"):
        assert not any(k == "US_SSN" for k, _ in kinds(f"SSN {invalid}"))


def test_email() -> None:
    assert kinds("mail Jane.Doe+x@mail.example.co.uk, thanks") == [
        ("EMAIL_ADDRESS", "Jane.Doe+x@mail.example.co.uk")
    ]
    assert kinds("not an email: a@b or @example.com") == []


def test_iban_with_checksum_spaces_and_case() -> None:
    assert kinds("IBAN GB82 WEST 1234 5698 7654 32 please") == [
        ("IBAN_CODE", "GB82 WEST 1234 5698 7654 32")
    ]
    assert kinds("iban de89370400440532013000.") == [("IBAN_CODE", "de89370400440532013000")]
    assert kinds("IBAN GB83 WEST 1234 5698 7654 32") == []  # checksum fails


def test_ip_addresses() -> None:
    assert kinds("from 192.168.0.1 and 2a00:1450:4001::8a2e:370:7334") == [
        ("IP_ADDRESS", "192.168.0.1"),
        ("IP_ADDRESS", "2a00:1450:4001::8a2e:370:7334"),
    ]
    # loopback, unspecified and documentation addresses (RFC 5737, RFC 3849) identify no one
    assert kinds("127.0.0.1, ::1, 0.0.0.0, 192.0.2.7, 203.0.113.9, "
                 "2001:db8::8a2e:370:7334") == []
    # a documentation dotted quad is not a phone number either (phonenumbers accepts 198.51.100.1)
    assert kinds("connect to 198.51.100.1 then 198.51.100.254") == []
    assert kinds("version 1.2.3.4.5 and 999.1.1.1 and 12:30:45") == []


def test_phone_numbers_international_and_national() -> None:
    found = kinds("Call +44 20 7946 0958 or (415) 555-2671, fax +1-984-182-0190x12.")
    assert [k for k, _ in found] == ["PHONE_NUMBER"] * 3
    assert found[0][1] == "+44 20 7946 0958"
    assert kinds("on 2024-03-15 10:30 we paid 1234 euros") == []


def test_street_address_heuristic() -> None:
    assert kinds("ship to 221B Baker Street, London") == [("STREET_ADDRESS", "221B Baker Street")]
    assert kinds("at 14 Crown Street Suite 321") == [
        ("STREET_ADDRESS", "14 Crown Street Suite 321")
    ]


def test_type_selection_and_validation() -> None:
    text = "jane@example.com 4111111111111111"
    assert [f.kind for f in find_pii(text, ["EMAIL_ADDRESS"])] == ["EMAIL_ADDRESS"]
    with pytest.raises(InvalidInputError, match="'types' parameter of find_pii"):
        find_pii(text, ["NAME"])
    assert set(PII_TYPES) >= {"CREDIT_CARD", "IBAN_CODE", "EMAIL_ADDRESS", "US_SSN"}


def test_findings_never_show_raw_values() -> None:
    finding = find_pii("card 4111111111111111")[0]
    assert "4111111111111111" not in repr(finding)
    assert "4111111111111111" not in str(finding.to_dict())
    assert finding.to_dict()["masked"] == "4111********1111"
    assert isinstance(finding, Finding)


def test_checksums() -> None:
    assert luhn_valid("79927398713") and not luhn_valid("79927398710")
    assert iban_valid("NL91ABNA0417164300") and not iban_valid("NL91ABNA041716430")
    assert ssn_valid("001", "01", "0001") and not ssn_valid("900", "01", "0001")


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "hostile",
    [
        "1 " * 50_000,
        "a" * 100_000 + "@",
        "a." * 50_000 + "@x",
        ":" * 100_000,
        "1." * 50_000,
        "GB82 " * 20_000,
        "9" * 100_000,
        "+(" * 50_000,
    ],
)
def test_hostile_inputs_scan_in_bounded_time(hostile: str) -> None:
    find_pii(hostile)  # a catastrophic pattern would hang here; the timeout fails the test


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "hostile", ["@" * 100_000, "a@" * 50_000, "a.b@" * 30_000, ("x" * 70 + "@e.com ") * 2000]
)
def test_hostile_email_inputs(hostile: str) -> None:
    find_pii(hostile, ["EMAIL_ADDRESS"])


def test_email_edge_cases() -> None:
    assert kinds("a@b.co,c@d.org") == [("EMAIL_ADDRESS", "a@b.co"), ("EMAIL_ADDRESS", "c@d.org")]
    assert kinds("(.jane@example.com)") == [("EMAIL_ADDRESS", "jane@example.com")]
    assert kinds("x" * 70 + "@example.com") == []  # local part longer than 64
    assert kinds("é" + "jane@example.com") == []  # glued to a word


def test_digit_prefilters_pass_every_text_the_patterns_match() -> None:
    """The searches that spare the card, SSN and address scans let through every text one of
    those patterns matches (generated texts of digits, separators, words and street names,
    Unicode digits included)."""
    import random

    from assay.safety.pii import _ADDRESS, _ADDRESS_START, _CARD, _SSN, _has_digit_run

    pieces = ["1", "4", "7", "0", "\u0663", "1234", "567", "89", " ", "-", ".", "(", ")", "+", "/",
              "x", "a", "B", "b", " Main", " Street", " St.", " Ave", " Oak", ", Apt 4"]
    rng = random.Random(0)
    reached = {"card": 0, "ssn": 0, "address": 0}
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30)))
        for name, pattern in (("card", _CARD), ("ssn", _SSN)):
            if pattern.search(text):
                reached[name] += 1
                assert _has_digit_run(text), (name, text)
        if _ADDRESS.search(text):
            reached["address"] += 1
            assert _ADDRESS_START.search(text), text
    assert min(reached.values()) > 50, reached  # the generator does reach every pattern
