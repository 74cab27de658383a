"""Offline detectors of secrets: keys, tokens, certificates and passwords.

Provider token formats are matched by their documented prefixes and lengths; JWTs must decode to a
JSON header with an ``alg``; a generic token counts as a secret only when it is long, mixes
character classes and has high Shannon entropy; a password counts when it is assigned to a
password-like name. All patterns use bounded repetitions so scanning stays linear in the input.

Example:
    >>> [f.kind for f in find_secrets('aws_key = "AKIAIOSFODNN7EXAMPLE"')]
    ['AWS_ACCESS_KEY_ID']
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator

from assay.safety.findings import Finding, resolve_overlaps

#: At most this many characters are scanned.
MAX_SCAN_CHARS = 2_000_000
#: A PEM block whose END line is further than this from its BEGIN line is cut at this length.
MAX_PEM_CHARS = 20_000

#: (type, pattern) of provider tokens; the whole match is the secret.
_TOKEN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("ANTHROPIC_API_KEY", r"sk-ant-(?:api|admin|oat|ort)\d{2}-[A-Za-z0-9_-]{32,200}"),
    ("OPENAI_API_KEY", r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,200}"),
    (
        "AWS_ACCESS_KEY_ID",
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}",
    ),
    (
        "GITHUB_TOKEN",
        r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{60,251}",
    ),
    ("SLACK_TOKEN", r"xox[abposre]-[A-Za-z0-9-]{10,250}"),
    (
        "SLACK_WEBHOOK",
        r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_]{8,12}/[A-Za-z0-9_]{8,12}"
        r"/[A-Za-z0-9_]{16,64}",
    ),
    ("GOOGLE_API_KEY", r"AIza[0-9A-Za-z_-]{35}"),
    ("GOOGLE_OAUTH_SECRET", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    ("GOOGLE_OAUTH_TOKEN", r"ya29\.[0-9A-Za-z_-]{20,500}"),
    ("STRIPE_KEY", r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,128}"),
    ("JWT", r"eyJ[A-Za-z0-9_-]{8,2000}\.[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{0,2000}"),
)
#: A provider token may follow an underscore (``AWS_KEY_AKIA...``, ``key=_ghp_...``): identifiers
#: join words with ``_``, so only letters, digits and ``-`` before a prefix mean "inside a word".
_TOKENS = re.compile(
    "(?<![A-Za-z0-9-])(?:"
    + "|".join(f"(?P<{kind}>{p})" for kind, p in _TOKEN_PATTERNS)
    + ")(?![A-Za-z0-9_-])"
)
#: Cheap pre-filter: a text without any of these substrings holds no provider token.
_TOKEN_HINTS = re.compile(
    r"sk-|A[A-Z0-9]{3}[A-Z0-9]{16}|gh[pousr]_|github_pat_|xox|hooks\.slack|AIza|GOCSPX-|ya29\.|_live_|_test_|eyJ"
)
_ASSIGNMENT_HINT = re.compile(r"(?i)(?:pass|pwd|secret|key|token)\w{0,20}[\"']?[ \t]{0,5}[:=]")
_PROSE_HINT = re.compile(r"(?i)pass|pwd")
_PEM_BEGIN = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]{1,20} ){0,4}(?:PRIVATE KEY|CERTIFICATE|KEY BLOCK))-----"
)
_PRODUCT_KEY = re.compile(
    r"(?<![A-Za-z0-9-])[BCDFGHJKMNPQRTVWXY2346789]{5}(?:-[BCDFGHJKMNPQRTVWXY2346789]{5}){4}"
    r"(?![A-Za-z0-9-])"
)
_PASSWORD_NAMES = (
    r"pass(?:word|wd|phrase)?|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?key|"
    r"secret[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|token"
)
_ASSIGNMENT = re.compile(
    rf"(?i)(?<![A-Za-z0-9_.-])(?:[A-Za-z0-9]{{1,20}}[_.-]){{0,3}}(?:{_PASSWORD_NAMES})"
    r"[\"']?[ \t]{0,5}"
    r"(?::=|=>|[:=])[ \t]{0,5}(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\r\n]{4,200})(?P=q)"
    r"|(?P<bare>[^\s\"'`,;)\]}]{4,200}))"
)
_PASSWORD_PROSE = re.compile(
    r"(?i)\b(?:password|passcode|passphrase|pwd)(?: for [\w@.-]{1,40})?"
    r"(?: is| was|:)[ \t]{1,5}[\"'`]?(?P<value>[^\s\"'`]{4,100}?)[\"'`]?(?=[\s.,;!?]|$)"
)
_GENERIC = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,512}={0,2}(?![A-Za-z0-9+/_=-])")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\*+|x+|\.+|<[^>]*>|\$\{?[\w.]*\}?|%\w+%|\{\{.*\}\}|none|null|true|false|"
    r"(?:your|my|the)[_-]?\w*|redacted|changeme_please|example\w*|\w*here)$"
)


def shannon_entropy(text: str) -> float:
    """Shannon entropy of the characters of ``text``, in bits per character.

    Example:
        >>> shannon_entropy("aaaa"), round(shannon_entropy("abcd"), 2)
        (0.0, 2.0)
    """
    if not text:
        return 0.0
    n = len(text)
    return 0.0 - sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _is_jwt(value: str) -> bool:
    header = value.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


def _tokens(text: str) -> Iterator[Finding]:
    if not _TOKEN_HINTS.search(text):
        return
    for m in _TOKENS.finditer(text):
        kind = m.lastgroup or "TOKEN"
        if kind == "JWT" and not _is_jwt(m.group()):
            continue
        yield Finding(m.start(), m.end(), kind, "secret", m.group())


def _pem(text: str) -> Iterator[Finding]:
    if "-----BEGIN " not in text:
        return
    for m in _PEM_BEGIN.finditer(text):
        label = m.group(1)
        end_marker = f"-----END {label}-----"
        stop = text.find(end_marker, m.end(), m.end() + MAX_PEM_CHARS)
        if stop >= 0:
            end = stop + len(end_marker)
        else:  # a truncated block still leaks its body
            body = re.match(rf"[A-Za-z0-9+/=\s:,-]{{0,{MAX_PEM_CHARS}}}", text[m.end() :])
            end = m.end() + (len(body.group().rstrip()) if body else 0)
        kind = (
            "PRIVATE_KEY" if "PRIVATE" in label else "CERTIFICATE" if "CERT" in label else "PGP_KEY"
        )
        yield Finding(m.start(), end, kind, "secret", text[m.start() : end])


def _product_keys(text: str) -> Iterator[Finding]:
    if text.count("-") < 4:
        return
    for m in _PRODUCT_KEY.finditer(text):
        if any(c.isdigit() for c in m.group()) and any(c.isalpha() for c in m.group()):
            yield Finding(m.start(), m.end(), "WINDOWS_PRODUCT_KEY", "secret", m.group())


def _password_hints(text: str) -> tuple[bool, bool]:
    """Whether ``text`` may hold a password assignment, and password prose: a case-folded
    substring test that every text the two hint patterns match passes (under ``IGNORECASE`` the
    only non-ASCII letters matching ASCII ones are İ, ı, ſ and K, which case-fold to i, s and k).
    Two case-insensitive pattern searches per text were half the secret scan of a report."""
    folded = text.casefold()
    prose = "pass" in folded or "pwd" in folded
    named = prose or "secret" in folded or "key" in folded or "token" in folded
    return named and ("=" in text or ":" in text), prose


def _passwords(text: str) -> Iterator[Finding]:
    assignment, prose = _password_hints(text)
    hinted = assignment and _ASSIGNMENT_HINT.search(text)
    for m in _ASSIGNMENT.finditer(text) if hinted else ():
        group = "quoted" if m.group("quoted") is not None else "bare"
        value = m.group(group)
        if not _PLACEHOLDER.match(value.strip()) and not value.startswith(("<", "$", "{{", "%")):
            yield Finding(m.start(group), m.end(group), "PASSWORD", "secret", value)
    for m in _PASSWORD_PROSE.finditer(text) if prose and _PROSE_HINT.search(text) else ():
        value = m.group("value")
        if not value.isalpha() and not _PLACEHOLDER.match(value):  # "is required" is prose
            yield Finding(m.start("value"), m.end("value"), "PASSWORD", "secret", value)


def decodes_to_prose(token: str) -> bool:
    """Whether ``token`` is base64 (or base64url) of ordinary prose: UTF-8 text of words and
    spaces that holds no secret itself. An entropy-only finding on such a token is not a secret
    (the catalogue's secret patterns are keys, tokens and passwords, not encoded sentences).

    Example:
        >>> decodes_to_prose("VGhlIHdlYXRoZXIgaXMgbmljZSB0b2RheQ==")  # "The weather is nice today"
        True
        >>> decodes_to_prose("q8Zr2LxWv9Tn4YpKc7Hs3MfBd6Ja1Ue5")  # random bytes
        False
    """
    core = token.rstrip("=")
    padded = core + "=" * (-len(core) % 4)
    try:
        raw = (base64.urlsafe_b64decode(padded) if "-" in core or "_" in core
               else base64.b64decode(padded, validate=True))
        decoded = raw.decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return False
    words = decoded.split()
    if len(words) < 3 or not all(c.isprintable() or c in "\n\t" for c in decoded):
        return False
    wordy = sum(w.strip(".,;:!?'\"()").isalpha() for w in words)
    if wordy < 0.8 * len(words):
        return False
    return not find_secrets(decoded, generic=False)


def encoded_prose_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the long tokens of ``text`` that :func:`decodes_to_prose` sets aside (not secrets,
    yet still tokens a whole-text transform such as reversal carries over).

    Example:
        >>> encoded_prose_spans("ok VGhlIHdlYXRoZXIgaXMgbmljZSB0b2RheQ== ok")
        [(3, 39)]
    """
    return [m.span() for m in _GENERIC.finditer(text) if decodes_to_prose(m.group())]


def _generic(text: str, threshold: float = 4.0) -> Iterator[Finding]:
    for m in _GENERIC.finditer(text):
        value = m.group()
        core = value.rstrip("=")
        if not (any(c.isdigit() for c in core) and any(c.isalpha() for c in core)):
            continue
        if decodes_to_prose(value):  # an encoded sentence, not a key
            continue
        if all(c in "0123456789abcdefABCDEF" for c in core):
            if len(core) >= 32 and shannon_entropy(core) >= 3.0 and not core.isdigit():
                yield Finding(m.start(), m.end(), "HIGH_ENTROPY_SECRET", "secret", value)
            continue
        if (
            shannon_entropy(core) >= threshold
            and any(c.isupper() for c in core)
            and any(c.islower() for c in core)
            and "/" not in core.strip("/")[:1]
            and core.count("/") < 3
        ):
            yield Finding(m.start(), m.end(), "HIGH_ENTROPY_SECRET", "secret", value)


#: Detector of each secret family.
SECRET_DETECTORS = {
    "PEM": _pem,
    "TOKEN": _tokens,
    "WINDOWS_PRODUCT_KEY": _product_keys,
    "PASSWORD": _passwords,
    "HIGH_ENTROPY": _generic,
}


def find_secrets(text: str, *, generic: bool = True) -> list[Finding]:
    """Find secrets in ``text``; overlapping findings keep the longest.

    Args:
        text: The text to scan (at most :data:`MAX_SCAN_CHARS` characters are scanned).
        generic: Also report unrecognised high-entropy tokens (``HIGH_ENTROPY_SECRET``).

    Returns:
        Findings sorted by position, with types such as ``PRIVATE_KEY``, ``OPENAI_API_KEY``,
        ``AWS_ACCESS_KEY_ID``, ``JWT``, ``PASSWORD`` or ``WINDOWS_PRODUCT_KEY``.

    Example:
        >>> [(f.kind, f.masked) for f in find_secrets("db_password = 'hunter2!x'")]
        [('PASSWORD', 'h*******x')]
    """
    text = text[:MAX_SCAN_CHARS]
    found: list[Finding] = []
    for family, detect in SECRET_DETECTORS.items():
        if family == "HIGH_ENTROPY" and not generic:
            continue
        found.extend(detect(text))
    return resolve_overlaps(_prefer_specific(found))


#: Finding types that only say "some secret": a recognised provider type overlapping them wins.
_UNTYPED = ("HIGH_ENTROPY_SECRET", "PASSWORD")


def _prefer_specific(found: Iterable[Finding]) -> list[Finding]:
    """Drop untyped findings (high-entropy tokens, assigned passwords) that overlap a recognised
    provider token or key, so ``api_key = "sk-proj-..."`` keeps the type ``OPENAI_API_KEY``; a
    password assignment still wins over a mere high-entropy token."""
    found = list(found)
    typed = [f for f in found if f.kind not in _UNTYPED]
    kept = typed + [
        f for f in found if f.kind == "PASSWORD" and not any(_overlap(t, f) for t in typed)
    ]
    return kept + [
        g
        for g in found
        if g.kind == "HIGH_ENTROPY_SECRET" and not any(_overlap(k, g) for k in kept)
    ]


def _overlap(a: Finding, b: Finding) -> bool:
    return a.start < b.end and b.start < a.end
