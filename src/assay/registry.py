"""One registry mechanism for every kind of named component, open to plugins.

Each kind (evaluators, perturbations, attacks, connectors, executors, calibrators, threshold
methods) has one :class:`Registry`. Built-in components are registered in code, eagerly
(:meth:`Registry.register`) or lazily by ``"module:attribute"`` reference
(:meth:`Registry.register_lazy`, so a heavy optional module is imported only when its component is
used). Installed packages add components through the Python entry-point group of the kind
(``assay.evaluators``, ``assay.perturbations``, ...): an entry point ``name = module:attribute``
appears in :meth:`Registry.names` at once and is imported on first use.

Example:
    >>> shapes = Registry("shape", "assay.examples.shapes")
    >>> _ = shapes.register("square", int)
    >>> shapes.register_lazy("fraction", "fractions:Fraction")
    >>> shapes.names(), shapes.get("fraction").__name__
    (['fraction', 'square'], 'Fraction')
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import logging
import threading
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any, Generic, TypeVar

from assay.errors import InvalidInputError

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: Entry-point group of each kind of component (each backend family has its own group too,
#: ``assay.backends.<family>``: see :mod:`assay.backends.resolve`).
GROUPS = {
    "evaluator": "assay.evaluators",
    "perturbation": "assay.perturbations",
    "attack": "assay.attacks",
    "connector": "assay.connectors",
    "executor": "assay.executors",
    "calibrator": "assay.calibrators",
    "threshold method": "assay.thresholds",
    "scripted reply": "assay.scripted_replies",
}


def load_object(spec: str, base_dir: Path | None = None) -> Any:
    """Import the object ``module.path:name`` or ``path/to/file.py:name`` names (``name`` may
    be dotted: ``module:Class.attribute``, as entry points allow).

    A relative file path is resolved against ``base_dir`` (the config file's folder). Lazy
    registry entries and plugins' entry points are loaded with it too.

    Example:
        >>> load_object("fractions:Fraction").__name__
        'Fraction'
    """
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise InvalidInputError(f"reference {spec!r} must look like 'package.module:name'")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise InvalidInputError(f"reference {spec!r}: no such file {path}")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InvalidInputError(
            f"reference {spec!r}: cannot import {module_name!r} ({exc})"
        ) from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InvalidInputError(f"reference {spec!r}: {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    return obj


def load_callable(spec: str, base_dir: Path | None = None) -> Callable[..., Any]:
    """A user's callable: ``module.path:function`` or ``path/to/file.py:function`` (see
    :func:`load_object`); Python targets and callables given by reference (e.g. a fact-check
    ``web_search``) are loaded with it.

    Example:
        >>> load_callable("os.path:basename")("/a/b.txt")
        'b.txt'
    """
    target = load_object(spec, base_dir)
    if not callable(target):
        module_name, _, attr = spec.rpartition(":")
        raise InvalidInputError(f"callable {spec!r}: {module_name!r} has no callable {attr!r}")
    return target


class Registry(Generic[T]):
    """Components of one kind by name: built-ins and installed plugins.

    Args:
        kind: what a component is, for messages (``"evaluator"``).
        group: the entry-point group plugins use (``"assay.evaluators"``).
        discover: called once before the first lookup, to import the modules whose components
            register themselves (e.g. every evaluator module).
        validate: called with ``(name, component)`` before a component is registered; raises to
            refuse it (e.g. a metric name already taken).
        hint: appended to the "unknown name" message (e.g. where to see the catalogue).
    """

    def __init__(
        self,
        kind: str,
        group: str,
        *,
        discover: Callable[[], None] | None = None,
        validate: Callable[[str, T], None] | None = None,
        hint: str = "",
    ) -> None:
        self.kind = kind
        self.group = group
        self._discover = discover
        self._validate = validate
        self._hint = hint
        self._items: dict[str, T] = {}
        self._lazy: dict[str, str] = {}  # name -> "module:attribute" not imported yet
        self._origin: dict[str, str] = {}  # name -> where a lazy entry comes from
        self._ready = False
        self._lock = threading.RLock()

    # -- registration -----------------------------------------------------------------------
    def register(self, name: str, component: T) -> T:
        """Register ``component`` as ``name`` (again with the same object is a no-op)."""
        with self._lock:
            held = self._items.get(name)
            if held is component:
                return component
            if held is not None:
                raise InvalidInputError(f"a {self.kind} named {name!r} is already registered")
            if self._validate is not None:
                self._validate(name, component)
            self._items[name] = component
            self._lazy.pop(name, None)
            return component

    def register_lazy(self, name: str, reference: str, origin: str = "assay") -> None:
        """Register ``name`` as the ``"module:attribute"`` ``reference``, imported on first use."""
        with self._lock:
            if name in self._items or name in self._lazy:
                raise InvalidInputError(f"a {self.kind} named {name!r} is already registered")
            self._lazy[name] = reference
            self._origin[name] = origin

    # -- lookup -----------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every registered name (built-in and plugin), sorted, without importing plugins."""
        self._prepare()
        return sorted({*self._items, *self._lazy})

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        self._prepare()
        return name in self._items or name in self._lazy

    def get(self, name: str) -> T:
        """The component registered as ``name`` (a lazy one is imported now).

        Raises:
            InvalidInputError: no such name (with close matches), or a plugin that fails to load
                (naming its entry point).
        """
        self._prepare()
        with self._lock:
            if name in self._items:
                return self._items[name]
            reference = self._lazy.get(name)
            if reference is None:
                close = difflib.get_close_matches(name, self.names(), n=3)
                hint = f" Did you mean {', '.join(close)}?" if close else ""
                known = self._hint or f" Known: {', '.join(self.names())}."
                raise InvalidInputError(f"Unknown {self.kind} {name!r}.{hint}{known}")
            origin = self._origin.get(name, "assay")
            try:
                component: T = load_object(reference)
            except Exception as exc:  # a broken plugin is named, never a bare traceback
                raise InvalidInputError(
                    f"the {self.kind} {name!r} ({reference}, from {origin}) cannot be loaded: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            del self._lazy[name]
            held = self._items.get(name)  # importing it may have registered it already
            return held if held is not None else self.register(name, component)

    def load_all(self) -> dict[str, T]:
        """Every component by name, importing the lazy ones (e.g. for a catalogue)."""
        return {name: self.get(name) for name in self.names()}

    def _prepare(self) -> None:
        if self._ready:
            return
        with self._lock:
            if self._ready:
                return
            self._ready = True
            if self._discover is not None:
                self._discover()
            for entry in metadata.entry_points(group=self.group):
                if entry.name in self._items or entry.name in self._lazy:
                    logger.warning("%s plugin %r (%s) ignored: the name is taken",
                                   self.kind, entry.name, entry.value)
                    continue
                dist = getattr(entry, "dist", None)
                self._lazy[entry.name] = entry.value
                self._origin[entry.name] = f"plugin {dist.name if dist else entry.group}"
