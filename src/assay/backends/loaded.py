"""Backends resolved from a spec string once per process, shared by the backend factories.

A factory (``get_lm``, ``get_nli``, ``get_classifier``) accepts an instance of its Protocol, which
it returns as is, or a spec string, which it builds once and then hands out from memory to every
evaluator that names it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from assay.params import check

T = TypeVar("T")


class LoadedBackends(Generic[T]):
    """Resolve specs into backends of one family; strings are built once per process.

    Args:
        protocol: the runtime-checkable Protocol a backend instance must satisfy.
        param: the parameter name, for error messages.
        where: the function name, for error messages.
        expected: what ``param`` must be, for error messages.

    Example:
        >>> loaded = LoadedBackends(list, "items", "get_items", "a spec string or a list")
        >>> first = loaded.resolve("abc", list)
        >>> first, loaded.resolve("abc", list) is first, loaded.resolve([1], list)
        (['a', 'b', 'c'], True, [1])
        >>> loaded.clear()
        >>> loaded.resolve("abc", list) is first
        False
    """

    def __init__(self, protocol: type[Any], param: str, where: str, expected: str) -> None:
        self.protocol = protocol
        self.param = param
        self.where = where
        self.expected = expected
        self._loaded: dict[Hashable, T] = {}
        self._lock = threading.Lock()

    def resolve(
        self, spec: str | T, build: Callable[[str], T], key: Hashable | None = None
    ) -> T:
        """``spec`` itself when it is a backend, else ``build(spec)``, built once per ``key``.

        Args:
            spec: a backend instance or a non-empty spec string.
            build: makes the backend of a spec string.
            key: what identifies the built backend (default: the spec string).

        Raises:
            InvalidInputError: ``spec`` is neither a backend nor a non-empty string.
        """
        if not isinstance(spec, str):
            check(isinstance(spec, self.protocol), self.param, self.where, self.expected, spec)
            return spec
        check(bool(spec.strip()), self.param, self.where, "a non-empty spec", spec)
        key = spec if key is None else key
        with self._lock:
            backend = self._loaded.get(key)
            if backend is None:
                backend = self._loaded[key] = build(spec)
        return backend

    def clear(self) -> None:
        """Forget the backends built so far."""
        with self._lock:
            self._loaded.clear()
