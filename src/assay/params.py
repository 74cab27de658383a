"""One message template for checking the parameters of public callables (DESIGN §6)."""

from __future__ import annotations

from typing import Any

from assay.errors import InvalidInputError


def check(ok: bool, name: str, where: str, expected: str, got: Any) -> None:
    """Raise :class:`InvalidInputError` with the project's standard message unless ``ok``.

    Example:
        >>> check(True, "k", "precision_at_k", "a positive integer", 3)
        >>> check(False, "k", "f", "positive", 0)
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: The 'k' parameter of f must be positive; got 0 instead.
    """
    if not ok:
        raise InvalidInputError(
            f"The {name!r} parameter of {where} must be {expected}; got {got!r} instead."
        )
