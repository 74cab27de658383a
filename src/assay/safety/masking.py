"""Masking of sensitive values in texts before they reach any output (explanations, reports)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from assay.safety.findings import Finding, resolve_overlaps
from assay.safety.pii import find_pii
from assay.safety.secrets import find_secrets


def find_sensitive(text: str) -> list[Finding]:
    """PII and secrets in ``text``, overlaps resolved (the longest finding wins).

    Example:
        >>> [f.kind for f in find_sensitive("token ghp_" + "a1B2" * 9 + " for bob@example.org")]
        ['GITHUB_TOKEN', 'EMAIL_ADDRESS']
    """
    return resolve_overlaps([*find_pii(text), *find_secrets(text)])


def mask(text: str, findings: Iterable[Finding]) -> str:
    """Replace every finding's span in ``text`` by its masked value.

    The findings must come from scanning this very ``text`` (their offsets index into it).

    Example:
        >>> text = "card 4111111111111111 ok"
        >>> mask(text, find_pii(text))
        'card 4111********1111 ok'
    """
    out: list[str] = []
    position = 0
    for finding in resolve_overlaps(findings):
        if finding.start < position:
            continue
        out.append(text[position : finding.start])
        out.append(finding.masked)
        position = finding.end
    out.append(text[position:])
    return "".join(out)


def scrub(text: str) -> str:
    """Mask every PII and secret value found in ``text`` (use before writing any text out).

    The process remembers the last :data:`REMEMBERED` texts of at most
    :data:`REMEMBERED_CHARS` characters it scrubbed, so a text is scanned once: evaluators
    scrub the answers and references they explain (``exact_match``, ``classification``), and the
    report shows the same texts (a third of a 10,000-case report's scans, issue 23).

    Example:
        >>> scrub("write to jane.doe@example.com")
        'write to jane************.com'
    """
    return (_remembered if len(text) <= REMEMBERED_CHARS else _scrubbed)(text)


def _scrubbed(text: str) -> str:
    findings = find_sensitive(text)
    return mask(text, findings) if findings else text


#: Scrubbed texts remembered per process (a few MB for answer-length texts).
REMEMBERED = 32_768
#: Longer texts are scanned every time (they would make the memory large).
REMEMBERED_CHARS = 1_000
_remembered = functools.lru_cache(maxsize=REMEMBERED)(_scrubbed)


class Scrubbed(str):
    """A text already masked by :func:`scrub` (or cut from such a text): :func:`redact` keeps it
    as it is instead of scanning it again (the report drill-down masks its case texts before
    clipping them; scanning them twice was a third of a 10,000-case run's report time)."""

    __slots__ = ()


def redact(value: Any) -> Any:
    """``value`` with every string inside it scrubbed: the one redaction pass of everything a
    report embeds (texts, explanations, evidence, slice and model names, problems, insights).

    Dictionary keys and values, lists and tuples are walked; numbers and other values are kept
    as they are (a number is never mistaken for a card). Each distinct string is scanned once.

    Example:
        >>> redact({"jane.doe@example.com": ["card 4111111111111111", 0.5]})
        {'jane************.com': ['card 4111********1111', 0.5]}
    """
    return Redactor()(value)


def redact_each(items: list[Any]) -> list[Any]:
    """``items`` with each item replaced by its :func:`redact`-ed value, in place (the unmasked
    item goes as its masked one comes: never two copies of a long list of findings).

    Example:
        >>> findings = [{"message": "mail bob@example.org"}]
        >>> redact_each(findings) is findings, findings[0]["message"]
        (True, 'mail b*************g')
    """
    masked = Redactor()
    for i, item in enumerate(items):
        items[i] = masked(item)
    return items


class Redactor:
    """:func:`redact` with a memory: each distinct string is scanned once across every call, so
    a writer can mask a column's values, then the few structures around them, without scanning
    a text twice (the report drill-down: one text per case field and per distinct explanation,
    not one per result row).

    Example:
        >>> masked = Redactor()
        >>> masked.text("bob@example.org"), masked(["bob@example.org", 1])
        ('b*************g', ['b*************g', 1])
    """

    __slots__ = ("text", "walk")

    def __init__(self) -> None:
        #: ``text(string)``: ``scrub(string)``, remembered.
        self.text: Callable[[str], str]
        #: ``walk(value)``: the same as calling the redactor, without the call's indirection
        #: (for loops over many small values).
        self.walk: Callable[[Any], Any]
        self.text, self.walk = _walker()

    def __call__(self, value: Any) -> Any:
        """``value`` with every string inside it scrubbed (see :func:`redact`)."""
        return self.walk(value)


def _walker() -> tuple[Callable[[str], str], Callable[[Any], Any]]:
    """A :class:`Redactor`'s two functions, sharing one memory of scrubbed texts (closures, not
    methods: a call of ``self`` costs a slot lookup per value, and nothing refers back to the
    redactor)."""
    seen: dict[str, str] = {}

    def text(string: str) -> str:
        found = seen.get(string)
        if found is None:
            found = seen[string] = scrub(string)
        return found

    def walk(item: Any) -> Any:
        # Exact-type checks first: a report's drill-down is ~10^6 values, and the ABC check of
        # Mapping on each was a third of the walk (issue 23); subclasses take the general path.
        kind = type(item)
        if kind in _KEPT:
            return item
        if kind is str:
            return text(item)
        if kind is dict:  # (kept values inline: a call each was half the walk of a report)
            return {walk(k): v if type(v) in _KEPT else walk(v) for k, v in item.items()}
        if kind is list:
            return [v if type(v) in _KEPT else walk(v) for v in item]
        if isinstance(item, Scrubbed):
            return item
        if isinstance(item, str):
            return text(item)
        if isinstance(item, Mapping):
            return {walk(k): walk(v) for k, v in item.items()}
        if isinstance(item, list | tuple):
            return [walk(v) for v in item] if isinstance(item, list) else tuple(map(walk, item))
        return item

    return text, walk


#: Types :func:`redact` keeps as they are without looking further (numbers are never cards).
_KEPT = frozenset({Scrubbed, int, float, bool, type(None)})
