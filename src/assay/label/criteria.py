"""Labeling criteria: binary (0 = fail, 1 = pass) or ordinal (an integer scale)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from assay.errors import InvalidInputError

#: Criteria used when none are configured.
DEFAULT_CRITERIA = ("grounded",)
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")


@dataclass(frozen=True)
class Criterion:
    """One thing annotators judge: ``kind`` is ``"binary"`` or ``"ordinal"`` on ``low..high``."""

    name: str
    kind: str = "binary"
    low: int = 0
    high: int = 1

    @property
    def values(self) -> list[int]:
        """The allowed label values, lowest first."""
        return list(range(self.low, self.high + 1))

    def spec(self) -> str:
        """The text form accepted by :func:`parse_criteria`."""
        return self.name if self.kind == "binary" else f"{self.name}:{self.low}-{self.high}"


def parse_criteria(text: str | None) -> list[Criterion]:
    """Parse ``"grounded,relevant,quality:1-5"`` (binary unless a ``low-high`` scale is given).

    Example:
        >>> [c.spec() for c in parse_criteria("grounded, quality:1-5")]
        ['grounded', 'quality:1-5']
        >>> parse_criteria("bad name")
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: invalid criterion 'bad name': use NAME or NAME:LOW-HIGH \
(NAME of letters, digits, _)
    """
    parts = [p.strip() for p in (text or ",".join(DEFAULT_CRITERIA)).split(",") if p.strip()]
    out: list[Criterion] = []
    for part in parts:
        name, _, scale = part.partition(":")
        match = re.fullmatch(r"(-?\d+)-(-?\d+)", scale.strip()) if scale else None
        if not _NAME.match(name.strip()) or (scale and match is None):
            raise InvalidInputError(
                f"invalid criterion {part!r}: use NAME or NAME:LOW-HIGH "
                "(NAME of letters, digits, _)"
            )
        if match is None:
            out.append(Criterion(name.strip()))
            continue
        low, high = int(match.group(1)), int(match.group(2))
        if not 0 <= high - low <= 9 or high <= low:
            raise InvalidInputError(f"criterion {part!r}: the scale needs 2 to 10 levels")
        out.append(Criterion(name.strip(), "ordinal", low, high))
    names = [c.name for c in out]
    if len(set(names)) != len(names) or not out:
        raise InvalidInputError(f"criteria must be distinct and non-empty; got {names}")
    return out
