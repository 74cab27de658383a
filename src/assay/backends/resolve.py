"""Spec -> backend: one mechanism for every backend family.

A :class:`BackendFamily` (embedders, NLI models, language models, toxicity and bias classifiers,
LLM clients) names its backends in a :class:`~assay.registry.Registry`: a spec ``"name"`` or
``"name:argument"`` (``"fake"``, ``"tiny"``, ``"minilm"``, ``"scripted"``, ``"detoxify:unbiased"``,
``"openai:gpt-4o-mini"``) builds the backend registered as ``name`` with the argument (``""`` for
a bare name); any other string goes to the family's ``fallback`` (a model name or a local path);
installed packages add backends through the family's entry-point group
(``assay.backends.<family>``). Test doubles are ordinary registered backends.

:func:`resolve` turns a spec into a backend: an instance of the family's Protocol is returned as
is (or wrapped by the family, once per instance); a string is built once per process and shared
by every caller naming it. There is one cache, keyed by ``(family, normalised spec)``, and one
:func:`clear_loaded`; a backend is built under a lock of its own key, so a slow model load holds
up only the callers naming the same spec.

Example:
    >>> shapes = BackendFamily("shape", list, where="get_shape", expected="a spec or a list")
    >>> shapes.register("letters", lambda arg: list(arg or "abc"))
    >>> first = resolve(shapes, "letters")
    >>> first, resolve(shapes, "letters") is first, resolve(shapes, "letters:xy")
    (['a', 'b', 'c'], True, ['x', 'y'])
    >>> clear_loaded()
    >>> resolve(shapes, "letters") is first
    False
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Generic, TypeVar

from assay.errors import InvalidInputError
from assay.params import check
from assay.registry import Registry
from assay.safety.credentials import redact_text

T = TypeVar("T")

#: Builds a backend from the argument of its spec (``"detoxify:unbiased"`` -> ``"unbiased"``).
Builder = Callable[[str], Any]


@dataclass(eq=False, repr=False)
class BackendFamily(Generic[T]):
    """The backends of one family, by name, and how a spec string becomes one.

    Args:
        name: the family (``"embedder"``); its entry-point group is ``assay.backends.<name>``.
        protocol: the runtime-checkable Protocol (or class) a backend instance satisfies.
        where: the public function resolving this family, for error messages.
        expected: what a spec must be, for error messages.
        fallback: builds a spec string that names no registered backend (a model name or
            path); None: such a spec is an error listing the known names.
        wrap: applied to an instance spec, once per instance (e.g. an embedder gets a memory
            cache); None returns instances as they are.
        close: called on each built backend by :func:`clear_loaded` (e.g. closing a file).
        param: the parameter taking the spec, for error messages (default ``name``).
    """

    name: str
    protocol: type[Any]
    _: KW_ONLY
    where: str
    expected: str
    fallback: Callable[[str], T] | None = None
    wrap: Callable[[Any], T] | None = None
    close: Callable[[T], None] | None = None
    param: str = ""
    #: The registered builders, by spec name (built-ins and the family's entry points).
    backends: Registry[Builder] = field(init=False)

    def __post_init__(self) -> None:
        self.param = self.param or self.name
        self.backends = Registry(f"{self.name} backend", f"assay.backends.{self.name}")

    def register(self, name: str, build: Builder) -> None:
        """Register ``build(argument)`` as the backend of specs ``name`` and ``name:argument``."""
        self.backends.register(name, build)

    def register_lazy(self, name: str, reference: str) -> None:
        """Register the builder ``"module:function"``, imported on first use."""
        self.backends.register_lazy(name, reference)

    def build(self, spec: str) -> T:
        """A new backend for the (stripped) spec string ``spec``.

        Raises:
            InvalidInputError: ``spec`` names no backend and the family has no fallback.
        """
        head, sep, argument = spec.partition(":")
        if spec in self.backends:
            built: T = self.backends.get(spec)("")
        elif sep and head in self.backends:
            built = self.backends.get(head)(argument)
        elif self.fallback is not None:
            built = self.fallback(spec)
        else:
            raise InvalidInputError(
                f"The '{self.param}' parameter of {self.where} must be one of "
                f"{', '.join(self.backends.names())} (optionally 'name:argument'); "
                f"got {redact_text(repr(spec))} "
                "instead."
            )
        return built

    def __repr__(self) -> str:
        return f"BackendFamily({self.name!r})"


#: (family, normalised spec, options) -> (the instance spec kept alive, backend, its family)
_LOADED: dict[tuple[Any, ...], tuple[Any, Any, BackendFamily[Any]]] = {}
#: One lock per key, held while its backend is built: callers naming the same spec wait for the
#: one build, callers naming another spec do not (a slow model load blocks only its own spec).
#: Building one backend may resolve another (a head reads the shared embedder): another key.
_BUILDING: dict[tuple[Any, ...], threading.Lock] = {}
#: Backends whose build straddled a :func:`clear_loaded`: handed to their caller, never cached,
#: closed by the next :func:`clear_loaded` (so every built backend is closed by exactly one).
_STALE: list[tuple[Any, BackendFamily[Any]]] = []
#: Counts :func:`clear_loaded` calls: a build started in an earlier generation is stale.
_generation = 0
#: Guards ``_LOADED``, ``_BUILDING``, ``_STALE`` and ``_generation``; never held while a backend
#: is built.
_LOCK = threading.Lock()


def resolve(
    family: BackendFamily[T],
    spec: Any,
    *,
    options: Hashable = None,
    build: Callable[[str], T] | None = None,
) -> T:
    """The backend ``spec`` names in ``family``: an instance as is (or wrapped once), a string
    built once per process.

    Args:
        family: the backend family.
        spec: an instance of the family's Protocol or a non-empty spec string.
        options: what else identifies the backend built from a string (e.g. a cache directory);
            part of the cache key.
        build: how to build the string (default :meth:`BackendFamily.build`), for a family whose
            built backends depend on ``options``.

    Raises:
        InvalidInputError: ``spec`` is neither a backend nor a non-empty string, or names no
            backend.
    """
    if not isinstance(spec, str):
        check(isinstance(spec, family.protocol), family.param, family.where, family.expected,
              spec)
        if family.wrap is None:
            return spec
        wrap = family.wrap
        return _cached(family, ("instance", id(spec)), spec, lambda: wrap(spec))
    text = spec.strip()
    check(bool(text), family.param, family.where, "a non-empty spec", spec)
    make = build if build is not None else family.build
    return _cached(family, (text, options), None, lambda: make(text))


def _cached(family: BackendFamily[T], key: tuple[Any, ...], keep: Any, make: Callable[[], T]
            ) -> T:
    full = (family.name, *key)
    while True:
        with _LOCK:
            held = _LOADED.get(full)
            if held is not None and held[0] is keep:  # an instance key is its id: is it alive?
                return held[1]
            generation = _generation
            building = _BUILDING.setdefault(full, threading.Lock())
        with building:  # the first caller builds; the others wait for it, then find its backend
            with _LOCK:
                if _generation != generation:  # cleared while waiting: this lock is forgotten
                    continue
                held = _LOADED.get(full)
                if held is not None and held[0] is keep:
                    return held[1]
            backend = make()
            with _LOCK:
                if _generation == generation:
                    _LOADED[full] = (keep, backend, family)
                else:  # cleared during the build: a rebuild may be cached already; keep it
                    _STALE.append((backend, family))
            return backend


def clear_loaded() -> None:
    """Forget every backend built in this process (closing those whose family says how).

    A build in progress meanwhile still hands its backend to its caller, but that backend is
    not cached (a caller resolving the spec afterwards gets a new build); the next call closes
    it.
    """
    global _generation
    with _LOCK:
        _generation += 1
        loaded = [(backend, family) for _, backend, family in _LOADED.values()]
        loaded += _STALE
        _LOADED.clear()
        _BUILDING.clear()
        _STALE.clear()
    for backend, family in loaded:
        if family.close is not None:
            family.close(backend)
