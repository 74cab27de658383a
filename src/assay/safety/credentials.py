"""Credentials out of every output: settings redacted by key name, by the secrets detectors and
in URLs, before they reach a manifest, a report, a log, a cache key or an error message.

A judge or a system under test is configured with settings (``headers``, ``api_key``, a
``base_url`` that may carry ``user:password@``). Any of them may hold a credential; assay records
the settings (the run manifest says how a run was made) but never the credential itself:

* a value under a key whose name says credential (``authorization``, ``api_key``, ``token``,
  ``password``, ``secret``, ``cookie``, …) is replaced by :data:`REDACTED`, whatever it is;
* in any other text, a URL's user-info and credential query parameters, a ``Bearer``/``Basic``
  scheme's value and whatever the secrets detectors recognise (provider keys, PEM blocks, JWTs,
  assigned passwords) are replaced by :data:`REDACTED`.

The whole value is replaced, not masked with its first and last characters: no byte of a
credential is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from assay.safety.secrets import find_secrets

#: What a credential is replaced by.
REDACTED = "[REDACTED]"

#: Parts of a key name that make its value a credential (``X-Api-Key``, ``proxy_authorization``).
_SENSITIVE_PARTS = frozenset(
    {
        "authorization",
        "auth",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "cookie",
        "credential",
        "credentials",
        "bearer",
        "signature",
    }
)
#: Adjacent parts that together name a credential (``api_key``, ``private-key``, ``session_id``).
_SENSITIVE_PAIRS = frozenset(
    {("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"), ("session", "id")}
)
_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,20}://)[^/\s@?#]{1,512}@")
_QUERY_SECRET = re.compile(
    r"(?i)([?&;](?:[a-z0-9_-]{0,20}(?:key|token|secret|password|passwd|pwd|signature|sig|auth))=)"
    r"[^&#;\s\"']+"
)
_SCHEME = re.compile(r"(?i)\b(bearer|basic|token|digest)([ \t]+)[A-Za-z0-9._~+/=:-]{4,}")


def sensitive_key(name: str) -> bool:
    """Whether a setting called ``name`` holds a credential (judged by its name alone).

    A name whose last part is ``env`` names an environment variable, not a credential.

    Example:
        >>> [sensitive_key(k) for k in ("Authorization", "x-api-key", "api_key_env", "max_tokens")]
        [True, True, False, False]
    """
    parts = [p.lower() for p in _PARTS.findall(name)]
    if not parts or parts[-1] == "env":
        return False
    if any(p in _SENSITIVE_PARTS for p in parts):
        return True
    return any(pair in _SENSITIVE_PAIRS for pair in pairwise(parts))


def redact_text(text: str) -> str:
    """``text`` with every credential in it replaced by :data:`REDACTED`.

    Example:
        >>> redact_text("http://bob:hunter2@db.local/x?api_key=abc123&n=2")
        'http://[REDACTED]@db.local/x?api_key=[REDACTED]&n=2'
        >>> redact_text("Authorization: Bearer abcdefgh12345678")
        'Authorization: Bearer [REDACTED]'
        >>> redact_text("key sk-proj-" + "A1b2C3d4" * 4)
        'key [REDACTED]'
    """
    text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    text = _QUERY_SECRET.sub(rf"\1{REDACTED}", text)
    text = _SCHEME.sub(rf"\1\2{REDACTED}", text)
    for finding in reversed(find_secrets(text, generic=False)):
        if REDACTED.strip("[]") not in finding.text:
            text = text[: finding.start] + REDACTED + text[finding.end :]
    return text


def redact_settings(value: Any, key: str | None = None) -> Any:
    """``value`` (settings: mappings, lists, texts, numbers) with every credential redacted.

    Args:
        value: The settings.
        key: The name ``value`` is stored under, when it is a setting's value.

    Example:
        >>> redact_settings({"headers": {"Authorization": "Bearer abc"}, "max_tokens": 5})
        {'headers': {'Authorization': '[REDACTED]'}, 'max_tokens': 5}
        >>> redact_settings(["https://u:p@h/v1"])
        ['https://[REDACTED]@h/v1']
    """
    if key is not None and sensitive_key(key) and value not in (None, "", {}, []):
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {k: redact_settings(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_settings(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_settings(v) for v in value)
    return value
