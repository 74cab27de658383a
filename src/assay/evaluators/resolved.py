"""An evaluator's injected model, resolved from its spec on first use and never pickled; registers
nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class ResolvesOnce:
    """Mixin for evaluators that resolve a backend spec lazily (a model loads on first use).

    The resolved backend is kept under ``_resolved`` and left out of pickles, so an evaluator
    shipped to another process resolves its spec again there.

    Example:
        >>> class Holder(ResolvesOnce):
        ...     spec = "abc"
        >>> holder = Holder()
        >>> model = holder.resolve_once(lambda: list(holder.spec))
        >>> model, holder.resolve_once(lambda: []) is model, "_resolved" in holder.__getstate__()
        (['a', 'b', 'c'], True, False)
    """

    _resolved: Any

    def resolve_once(self, build: Callable[[], T]) -> T:
        """The backend kept from the first call, else ``build()`` (kept for the next calls)."""
        resolved: T | None = self.__dict__.get("_resolved")
        if resolved is None:
            resolved = self._resolved = build()
        return resolved

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_resolved", None)  # never pickle a loaded model
        return state
