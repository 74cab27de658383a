"""Find encoded or obfuscated text and decode it: base16, base64, URL-encoding, rot13, reversal.

Models can be talked into leaking data in an encoding that plain-text checks miss.
:func:`find_encoded` finds candidate segments with linear-time patterns, decodes them and keeps
those that decode to readable text; rot13 and reversal apply to the whole text (every text
"decodes" under them, so the caller decides whether the decoded form reveals something the plain
form does not).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

#: The supported encodings, in the order they are tried.
ENCODINGS: tuple[str, ...] = ("base16", "base64", "url", "rot13", "reversed")
#: Candidate segments longer than this are not decoded (bounds the work per segment).
MAX_SEGMENT_CHARS = 100_000

_BASE16 = re.compile(
    r"(?<![0-9A-Za-z])(?:(?:[0-9A-Fa-f]{2}){8,50000}|(?:[0-9A-Fa-f]{2}[ :]){7,50000}[0-9A-Fa-f]{2}"
    r"|(?:\\x[0-9A-Fa-f]{2}){4,50000})(?![0-9A-Za-z])"
)
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{12,100000}={0,2}(?![A-Za-z0-9+/_=-])")
_URL_TOKEN = re.compile(r"[^\s%]{0,200}(?:%[0-9A-Fa-f]{2}[^\s%]{0,200}){2,10000}")


@dataclass(frozen=True)
class DecodedSegment:
    """A segment of a text and what it decodes to.

    Attributes:
        encoding: One of :data:`ENCODINGS` (nested decodings read ``"base64>base16"``).
        start: Offset of the encoded segment in the scanned text.
        end: Offset just past it.
        decoded: The decoded text; never shown by ``repr``.
    """

    encoding: str
    start: int
    end: int
    decoded: str = field(repr=False)


def _readable(text: str, min_chars: int = 4) -> bool:
    if len(text) < min_chars:
        return False
    good = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
    letters = sum(1 for ch in text if ch.isalnum())
    return good / len(text) >= 0.95 and letters / len(text) >= 0.3


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def decode_base16(segment: str) -> str | None:
    """Decode hexadecimal text (plain, space/colon separated or ``\\x`` escaped), or None.

    Example:
        >>> decode_base16("68656c6c6f20776f726c64")
        'hello world'
    """
    compact = segment.replace("\\x", "").replace(" ", "").replace(":", "")
    try:
        text = _utf8(bytes.fromhex(compact))
    except ValueError:
        return None
    return text if text is not None and _readable(text) else None


def decode_base64(segment: str) -> str | None:
    """Decode standard or URL-safe base64 (padding optional) to readable text, or None.

    Example:
        >>> decode_base64("aGVsbG8gd29ybGQ")
        'hello world'
    """
    core = segment.rstrip("=")
    classes = (
        any(c.islower() for c in core)
        + any(c.isupper() for c in core)
        + any(c.isdigit() for c in core)
    )
    if len(core) % 4 == 1 or classes < 2:  # one-class words ("circumstantial") are not base64
        return None
    padded = core + "=" * (-len(core) % 4)
    try:
        if "-" in core or "_" in core:
            data = base64.urlsafe_b64decode(padded)
        else:
            data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    text = _utf8(data)
    return text if text is not None and _readable(text) else None


def decode_url(segment: str) -> str | None:
    """Decode percent-encoding when it changes the text and gives readable text, or None.

    Example:
        >>> decode_url("j%61ne%40example.com")
        'jane@example.com'
    """
    decoded = unquote(segment, errors="strict") if "%" in segment else segment
    return decoded if decoded != segment and _readable(decoded, 3) else None


def _candidates(text: str, encodings: tuple[str, ...]) -> list[DecodedSegment]:
    found: list[DecodedSegment] = []
    hex_spans: list[tuple[int, int]] = []
    if "base16" in encodings:
        for m in _BASE16.finditer(text):
            decoded = decode_base16(m.group())
            if decoded is not None:
                found.append(DecodedSegment("base16", m.start(), m.end(), decoded))
                hex_spans.append((m.start(), m.end()))
    if "base64" in encodings:
        for m in _BASE64.finditer(text):
            if (m.start(), m.end()) in hex_spans or len(m.group()) > MAX_SEGMENT_CHARS:
                continue
            decoded = decode_base64(m.group())
            if decoded is not None:
                found.append(DecodedSegment("base64", m.start(), m.end(), decoded))
    if "url" in encodings and "%" in text:
        for m in _URL_TOKEN.finditer(text):
            try:
                decoded_url = decode_url(m.group())
            except UnicodeDecodeError:
                continue
            if decoded_url is not None:
                found.append(DecodedSegment("url", m.start(), m.end(), decoded_url))
    return found


def find_encoded(
    text: str, encodings: tuple[str, ...] = ENCODINGS, *, max_depth: int = 2
) -> list[DecodedSegment]:
    """Find encoded segments in ``text`` and decode them.

    base16, base64 and URL-encoded segments are found by pattern and kept when they decode to
    readable UTF-8 text; their decoded text is searched again up to ``max_depth`` levels (offsets
    of nested segments are those of the outer segment). ``rot13`` and ``reversed`` always yield
    one segment covering the whole text.

    Example:
        >>> [(s.encoding, s.decoded) for s in find_encoded("see aGVsbG8gd29ybGQ=", ("base64",))]
        [('base64', 'hello world')]
        >>> find_encoded("Uryyb", ("rot13",))[0].decoded
        'Hello'
    """
    from assay.params import check

    unknown = [e for e in encodings if e not in ENCODINGS]
    check(not unknown, "encodings", "find_encoded", f"a subset of {list(ENCODINGS)}", unknown)
    segments = _candidates(text, encodings)
    frontier = list(segments)
    for _ in range(max_depth - 1):
        nested: list[DecodedSegment] = []
        for outer in frontier:
            for inner in _candidates(outer.decoded, encodings):
                nested.append(
                    DecodedSegment(
                        f"{outer.encoding}>{inner.encoding}", outer.start, outer.end, inner.decoded
                    )
                )
        segments.extend(nested)
        frontier = nested
    if "rot13" in encodings and any(ch.isalpha() for ch in text):
        segments.append(DecodedSegment("rot13", 0, len(text), codecs.encode(text, "rot13")))
    if "reversed" in encodings and len(text) > 1:
        segments.append(DecodedSegment("reversed", 0, len(text), text[::-1]))
    return segments
