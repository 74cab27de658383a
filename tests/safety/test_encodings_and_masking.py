"""Encoded-segment detection and decoding; masking of findings in texts."""

from __future__ import annotations

import base64
import codecs
from urllib.parse import quote

import pytest

from assay.errors import InvalidInputError
from assay.safety import find_encoded, find_pii, find_sensitive, mask, mask_value, scrub
from assay.safety.encodings import decode_base16, decode_base64, decode_url

SECRET_TEXT = "the vault code is 7731 and mail bob@example.org"


def segments(text: str, encodings=("base16", "base64", "url")) -> list[tuple[str, str]]:
    return [(s.encoding, s.decoded) for s in find_encoded(text, encodings)]


def test_base64_standard_urlsafe_and_unpadded() -> None:
    b64 = base64.b64encode(SECRET_TEXT.encode()).decode()
    assert segments(f"here: {b64} ok") == [("base64", SECRET_TEXT)]
    raw = "ÿþ?> key: naïve €".encode()
    urlsafe = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    assert decode_base64(urlsafe) == raw.decode()


def test_base16_plain_separated_and_escaped() -> None:
    hexed = SECRET_TEXT.encode().hex()
    assert segments(f"x {hexed} y") == [("base16", SECRET_TEXT)]
    spaced = " ".join(f"{b:02x}" for b in b"secret word")
    assert segments(spaced) == [("base16", "secret word")]
    assert decode_base16("\\x73\\x65\\x63\\x72\\x65\\x74") == "secret"


def test_url_encoding() -> None:
    encoded = quote(SECRET_TEXT, safe="")
    assert segments(f"link {encoded}") == [("url", SECRET_TEXT)]
    assert decode_url("plain-text") is None


def test_rot13_and_reversed_cover_the_whole_text() -> None:
    text = codecs.encode("password is hunter2", "rot13")
    found = find_encoded(text, ("rot13", "reversed"))
    assert [(s.encoding, s.start, s.end) for s in found] == [
        ("rot13", 0, len(text)),
        ("reversed", 0, len(text)),
    ]
    assert found[0].decoded == "password is hunter2"
    assert found[1].decoded == text[::-1]


def test_nested_encodings() -> None:
    inner = SECRET_TEXT.encode().hex()
    outer = base64.b64encode(inner.encode()).decode()
    found = segments(outer)
    assert ("base64>base16", SECRET_TEXT) in found


@pytest.mark.parametrize(
    "text",
    [
        "The quick brown fox jumps over the lazy dog.",
        "Reference ABCDEFGHIJKLMNOPQRSTUV is not base64 text",
        "hash 5d41402abc4b2a76b9719d911017c592",  # hex but binary
        "100% sure, 50% off",
    ],
)
def test_ordinary_text_is_not_decoded(text: str) -> None:
    assert segments(text) == []


def test_decoded_not_in_repr_and_encodings_validated() -> None:
    b64 = base64.b64encode(SECRET_TEXT.encode()).decode()
    assert SECRET_TEXT not in repr(find_encoded(b64))
    with pytest.raises(InvalidInputError, match="'encodings' parameter of find_encoded"):
        find_encoded("x", ("base32",))


@pytest.mark.timeout(20)
@pytest.mark.parametrize("hostile", ["%" * 100_000, "%41" * 50_000, "A" * 200_001, "ab" * 100_000])
def test_hostile_inputs_bounded(hostile: str) -> None:
    find_encoded(hostile)


def test_mask_value_rules() -> None:
    assert mask_value("4111111111111111") == "4111********1111"
    assert mask_value("x" * 500) == "xxxx" + "*" * 16 + "xxxx"
    assert mask_value("ab\ncdefghijklmnopq") == "ab*c" + "*" * 10 + "nopq"
    assert mask_value("ab\ncdefghijklmn") == "a" + "*" * 13 + "n"
    assert mask_value("12345") == "*****"


def test_mask_replaces_spans_and_scrub_finds_both_families() -> None:
    text = "card 4111111111111111, key AKIA" + "IOSFODNN7EXAMPLE, mail a.b@example.com"
    masked = scrub(text)
    assert "4111111111111111" not in masked and "IOSFODNN7EXAMPLE" not in masked
    assert "a.b@example.com" not in masked
    assert masked.startswith("card 4111********1111, key AKIA")
    assert [f.kind for f in find_sensitive(text)] == [
        "CREDIT_CARD",
        "AWS_ACCESS_KEY_ID",
        "EMAIL_ADDRESS",
    ]
    assert mask(text, []) == text
    assert mask("no pii", find_pii("no pii")) == "no pii"


def test_long_words_are_not_base64() -> None:
    assert segments("circumstantial internationalization RESPONSIBILITIES") == []


def test_scrub_remembers_short_texts_only() -> None:
    """A short text scrubbed again comes from the process's memory, with the same result; a long
    one is scanned every time (it would make the memory large)."""
    from assay.safety.masking import REMEMBERED_CHARS, _remembered, find_sensitive, mask, scrub

    short = "write to ada.lovelace@example.org or call +44 20 7946 0958"
    long = (short + " ") * (REMEMBERED_CHARS // len(short) + 1)
    for text in (short, long):
        assert scrub(text) == scrub(text) == mask(text, find_sensitive(text))
    before = _remembered.cache_info()
    scrub(short)
    scrub(long)
    after = _remembered.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (1, 0)
