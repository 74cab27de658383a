"""Offline detectors of personal data (PII) in text.

Every detector is a regular expression written for linear-time matching (bounded repetitions, no
nested ambiguous quantifiers) followed by a validator that removes look-alikes: the Luhn check for
card numbers, the mod-97 check and country length for IBANs, the SSA issuing rules for US Social
Security numbers, :mod:`ipaddress` for IP addresses and Google's ``phonenumbers`` library for phone
numbers. Person names are not detected (no offline model is reliable enough; see docs/safety.md).

Example:
    >>> [f.kind for f in find_pii("Mail jane@example.com or call +44 20 7946 0958.")]
    ['EMAIL_ADDRESS', 'PHONE_NUMBER']
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

from assay.safety.checksums import iban_valid, luhn_valid, ssn_valid
from assay.safety.findings import Finding, resolve_overlaps

#: At most this many characters of a text are scanned (TestCase fields are limited to the same).
MAX_SCAN_CHARS = 2_000_000

_CARD = re.compile(r"(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-])")
_SSN = re.compile(r"(?<![\w-])(\d{3})([- ]?)(\d{2})\2(\d{4})(?![\w-])")
_EMAIL = re.compile(
    r"(?<![\w%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}(?![\w-])"
)
_LOCAL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_IBAN = re.compile(
    r"(?<![\w])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?(?!\w)"
)
_IPV4 = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w]|\.\d)")
_IPV6 = re.compile(
    r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?![\w:])"
)
_DIGITS7 = re.compile(r"\d(?:\D{0,3}\d){6}")
_PHONE = re.compile(
    r"(?<![\w+.-])(?:\+|00)?(?:\(\d{1,4}\)[ .-]?)?\d[\d ().-]{5,20}\d"
    r"(?:[ ]?(?:x|ext\.?|#)[ ]?\d{1,5})?(?![\w-]|\.\d)"
)
_SEPARATORS = re.compile(r"[ ().+-]+")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}([/.-])\d{1,2}\1\d{2,4}$")
#: Regions whose national formats are tried for numbers written without a ``+`` country code.
PHONE_REGIONS: tuple[str, ...] = ("US", "GB", "DE", "FR", "IN", "AU", "CA", "IT", "ES", "NL")
_STREET_WORDS = (
    "Street|Avenue|Road|Boulevard|Lane|Drive|Court|Way|Place|Square|Terrace|Parkway|Highway|"
    "Circle|Crescent|Close|Gardens|Trail"
)
_STREET_ABBREVIATIONS = "St|Ave|Rd|Blvd|Ln|Dr|Ct|Pl|Sq|Pkwy|Hwy|Cir"
_ADDRESS = re.compile(
    rf"(?<!\w)\d{{1,5}}[A-Za-z]?(?: [A-Z][\w'’.-]{{0,30}}){{1,4}} "
    rf"(?:(?:{_STREET_WORDS})|(?:{_STREET_ABBREVIATIONS})\.?)"
    r"(?:,? (?:Apt\.?|Suite|Unit|Flat) ?#?\d{1,5}[A-Za-z]?)?(?!\w)"
)
#: What every street address has: its house number's last digit (and letter), then a capital.
#: A search for it skips to digits; the address pattern is tried at every position of the text.
_ADDRESS_START = re.compile(r"\d[A-Za-z]? [A-Z]")


@lru_cache(maxsize=4)
def _has_digit_run(text: str) -> bool:
    """Whether ``text`` has seven digits with at most three other characters between each two, as
    every card number, SSN and phone number has. The search skips from digit to digit and is
    remembered for the three detectors: most texts need none of their scans (issue 23: a
    10,000-case report scans ~17,000 texts)."""
    return _DIGITS7.search(text) is not None


def _cards(text: str) -> Iterator[Finding]:
    for m in _CARD.finditer(text) if _has_digit_run(text) else ():
        value = m.group()
        digits = value.replace(" ", "").replace("-", "")
        if 12 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_valid(digits):
            yield Finding(m.start(), m.end(), "CREDIT_CARD", "pii", value)


def _ssns(text: str) -> Iterator[Finding]:
    for m in _SSN.finditer(text) if _has_digit_run(text) else ():
        if m.group(2) == "" and not _near(text, m.start(), ("ssn", "social security")):
            continue  # nine bare digits are an SSN only when the text says so
        if ssn_valid(m.group(1), m.group(3), m.group(4)):
            yield Finding(m.start(), m.end(), "US_SSN", "pii", m.group())


def _near(text: str, start: int, words: Sequence[str], window: int = 40) -> bool:
    before = text[max(0, start - window) : start].lower()
    return any(w in before for w in words)


def _emails(text: str) -> Iterator[Finding]:
    # anchor on each "@" (rare in text) instead of trying the pattern at every position
    last_end = 0
    at = text.find("@")
    while at >= 0:
        start = at
        while start > last_end and at - start <= 64 and text[start - 1] in _LOCAL_CHARS:
            start -= 1
        while start < at and not text[start].isalnum():
            start += 1
        m = _EMAIL.match(text, start, min(len(text), at + 320)) if start < at else None
        if m is not None:
            yield Finding(m.start(), m.end(), "EMAIL_ADDRESS", "pii", m.group())
            last_end = m.end()
        at = text.find("@", max(at + 1, last_end))


def _ibans(text: str) -> Iterator[Finding]:
    for m in _IBAN.finditer(text):
        value = m.group()
        if iban_valid(value):
            yield Finding(m.start(), m.end(), "IBAN_CODE", "pii", value)
        elif value.count(" ") and iban_valid(value.rsplit(" ", 1)[0]):
            head = value.rsplit(" ", 1)[0]  # a trailing word glued on by the optional group
            yield Finding(m.start(), m.start() + len(head), "IBAN_CODE", "pii", head)


#: Addresses that identify no one: documentation ranges (RFC 5737, RFC 3849).
_DOCUMENTATION_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")
)


def _personal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether an IP address can point at a person's machine: loopback (``127.0.0.1``,
    ``::1``), unspecified (``0.0.0.0``) and documentation addresses, common in technical
    documents, cannot."""
    if address.is_loopback or address.is_unspecified:
        return False
    return not any(address in network for network in _DOCUMENTATION_NETWORKS
                   if network.version == address.version)


def _ips(text: str) -> Iterator[Finding]:
    for m in _IPV4.finditer(text) if text.count(".") >= 3 else ():  # a dotted quad's dots
        if all(
            int(part) <= 255 and (part == "0" or part[0] != "0") for part in m.group().split(".")
        ) and _personal(ipaddress.IPv4Address(m.group())):
            yield Finding(m.start(), m.end(), "IP_ADDRESS", "pii", m.group())
    if text.count(":") < 2:  # fewer than an IPv6 address has
        return
    for m in _IPV6.finditer(text):
        value = m.group()
        if value.count(":") < 2 or not any(c.isalnum() for c in value):
            continue
        try:
            address = ipaddress.IPv6Address(value)
        except ValueError:
            continue
        if _personal(address):
            yield Finding(m.start(), m.end(), "IP_ADDRESS", "pii", value)


@lru_cache(maxsize=65536)
def _phone_ok(value: str, regions: tuple[str, ...]) -> bool:
    """Whether ``phonenumbers`` accepts ``value``: a ``+`` number must be a possible number of its
    country, a national number must be valid in one of ``regions``."""
    import phonenumbers

    if value.startswith(("+", "00")):
        try:
            compact = value.replace("(0)", "")  # "+44 (0)20 …": the trunk 0 is not dialled
            number = phonenumbers.parse("+" + compact[2:] if compact.startswith("00") else compact)
        except phonenumbers.NumberParseException:
            return False
        return bool(phonenumbers.is_possible_number(number))
    for region in regions:
        try:
            number = phonenumbers.parse(value, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(number):
            return True
    return False


def _phones(text: str, regions: tuple[str, ...] = PHONE_REGIONS) -> Iterator[Finding]:
    if not _has_digit_run(text):
        return
    for m in _PHONE.finditer(text):
        value = m.group()
        digits = "".join(ch for ch in value if ch.isdigit())
        international = value.startswith(("+", "00"))
        groups = [g for g in _SEPARATORS.split(value.split("x")[0]) if g]
        if (
            not 7 <= len(digits) <= 15
            or _DATE.match(value)
            or _IPV4.fullmatch(value)  # a dotted quad is an IP address (or none), never a phone
            or (not international and len(groups) < 3 and len(digits) < 10)
            or sum(len(g) == 1 for g in groups) > 1
            or (not international and _CARD.fullmatch(value) and luhn_valid(digits))
        ):
            continue
        if _phone_ok(value, regions):
            yield Finding(m.start(), m.end(), "PHONE_NUMBER", "pii", value)


def _addresses(text: str) -> Iterator[Finding]:
    for m in _ADDRESS.finditer(text) if _ADDRESS_START.search(text) else ():
        yield Finding(m.start(), m.end(), "STREET_ADDRESS", "pii", m.group())


#: Detector of each supported PII entity type (Presidio's type names).
PII_DETECTORS: dict[str, Callable[[str], Iterable[Finding]]] = {
    "CREDIT_CARD": _cards,
    "US_SSN": _ssns,
    "EMAIL_ADDRESS": _emails,
    "IBAN_CODE": _ibans,
    "IP_ADDRESS": _ips,
    "PHONE_NUMBER": _phones,
    "STREET_ADDRESS": _addresses,
}
#: The PII entity types detected by default (pattern-based, no model).
PII_TYPES: tuple[str, ...] = tuple(PII_DETECTORS)
#: Opt-in types that need a model: ``PERSON`` (spaCy NER, ``pip install 'assay[ner]'``).
MODEL_PII_TYPES: tuple[str, ...] = ("PERSON",)
#: Every type :func:`find_pii` accepts.
ALL_PII_TYPES: tuple[str, ...] = PII_TYPES + MODEL_PII_TYPES


def find_pii(text: str, types: Iterable[str] | None = None) -> list[Finding]:
    """Find personal data in ``text``; overlapping findings keep the longest.

    Args:
        text: The text to scan (at most :data:`MAX_SCAN_CHARS` characters are scanned).
        types: Entity types to look for (default: :data:`PII_TYPES`; add ``"PERSON"`` for names
            found by a spaCy model, see :mod:`assay.safety.names`).

    Returns:
        Findings sorted by position; their raw values are never shown by ``repr``.

    Example:
        >>> [(f.kind, f.masked) for f in find_pii("card 4111 1111 1111 1111, SSN 123-45-6789")]
        [('CREDIT_CARD', '4111***********1111'), ('US_SSN', '1*********9')]
    """
    selected = PII_TYPES if types is None else tuple(types)
    unknown = [t for t in selected if t not in ALL_PII_TYPES]
    if unknown:
        from assay.params import check

        check(False, "types", "find_pii", f"a subset of {list(ALL_PII_TYPES)}", unknown)
    text = text[:MAX_SCAN_CHARS]
    found: list[Finding] = []
    for kind in selected:
        if kind == "PERSON":
            from assay.safety.names import find_names

            found.extend(find_names(text))
        else:
            found.extend(PII_DETECTORS[kind](text))
    return resolve_overlaps(found)
