"""An evaluator's injected model, resolved from its spec on first use and never pickled; registers
nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

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

    #: The attributes holding resolved backends (one per backend the evaluator uses).
    unpickled: ClassVar[tuple[str, ...]] = ("_resolved",)

    def resolve_once(self, build: Callable[[], T], attribute: str = "_resolved") -> T:
        """The backend kept under ``attribute`` from the first call, else ``build()`` (kept
        for the next calls); ``attribute`` must be listed in :attr:`unpickled`."""
        resolved: T | None = self.__dict__.get(attribute)
        if resolved is None:
            resolved = self.__dict__[attribute] = build()
        return resolved

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for attribute in self.unpickled:  # never pickle a loaded model
            state.pop(attribute, None)
        return state
