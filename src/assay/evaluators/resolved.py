"""What an evaluator holds beside its parameters (a resolved model, a judge session, memos,
counters), built on first use; registers nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

T = TypeVar("T")


class ResolvesOnce:
    """Mixin for evaluators that build state lazily (a model loads on first use).

    Each piece of state is kept under its own attribute; those listed in :attr:`unpickled`
    (resolved backends, judge sessions, memos) are left out of pickles, so an evaluator shipped to
    another process resolves its specs again there (through the process's shared backends,
    :mod:`assay.backends.resolve`) and starts with empty memos.

    Example:
        >>> class Holder(ResolvesOnce):
        ...     spec = "abc"
        >>> holder = Holder()
        >>> model = holder.resolve_once(lambda: list(holder.spec))
        >>> model, holder.resolve_once(lambda: []) is model, "_resolved" in holder.__getstate__()
        (['a', 'b', 'c'], True, False)
    """

    #: The attributes left out of pickles (a subclass extends its parent's tuple).
    unpickled: ClassVar[tuple[str, ...]] = ("_resolved",)

    def resolve_once(self, build: Callable[[], T], attribute: str = "_resolved") -> T:
        """The value kept under ``attribute`` from the first call, else ``build()`` (kept for
        the next calls); list ``attribute`` in :attr:`unpickled` unless it should travel with
        the evaluator (e.g. counters)."""
        resolved: T | None = self.__dict__.get(attribute)
        if resolved is None:
            resolved = self.__dict__[attribute] = build()
        return resolved

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for attribute in self.unpickled:  # never pickle a loaded model
            state.pop(attribute, None)
        return state
