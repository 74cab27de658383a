"""Reusable offline detectors of sensitive data, and masking of what they find.

Public API:

* :func:`find_pii` — personal data (cards, SSNs, emails, phones, IBANs, IP and street addresses;
  person names with the opt-in spaCy model, :func:`find_names`);
* :func:`find_secrets` — keys, tokens, certificates, passwords, product keys;
* :func:`find_sensitive` — both;
* :func:`find_encoded` — base16 / base64 / URL-encoded / rot13 / reversed segments, decoded;
* :func:`mask` and :func:`scrub` — mask findings in a text before it is written anywhere;
  :func:`redact` — scrub every string of a nested structure (what a report embeds);
* :func:`redact_settings` and :func:`redact_text` — credentials out of settings and messages.

Every detector returns :class:`Finding` values whose raw text never appears in their ``repr`` or
``to_dict()``.
"""

from assay.safety.credentials import REDACTED, redact_settings, redact_text
from assay.safety.encodings import DecodedSegment, find_encoded
from assay.safety.findings import Finding, count_by_kind, mask_value, resolve_overlaps
from assay.safety.masking import find_sensitive, mask, redact, scrub
from assay.safety.names import find_names
from assay.safety.pii import ALL_PII_TYPES, PII_TYPES, find_pii
from assay.safety.secrets import find_secrets, shannon_entropy

__all__ = [
    "ALL_PII_TYPES",
    "PII_TYPES",
    "REDACTED",
    "DecodedSegment",
    "Finding",
    "count_by_kind",
    "find_encoded",
    "find_names",
    "find_pii",
    "find_secrets",
    "find_sensitive",
    "mask",
    "mask_value",
    "redact",
    "redact_settings",
    "redact_text",
    "resolve_overlaps",
    "scrub",
    "shannon_entropy",
]
