"""The evaluator registry: evaluators register by name and are found by name.

Every module in :mod:`assay.evaluators` is imported on first lookup, so adding an evaluator is
adding a module; those modules must not import heavy libraries at import time (DESIGN §5).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, TypeVar

from assay.errors import InvalidInputError
from assay.evaluators.base import REQUIRABLE_FIELDS, Evaluator

E = TypeVar("E", bound=type[Evaluator])

_REGISTRY: dict[str, type[Evaluator]] = {}
_METRIC_OWNERS: dict[str, str] = {}
_discovered = False


def register(cls: E) -> E:
    """Class decorator that registers an evaluator under ``cls.name``.

    Evaluator names and metric names are unique across the whole registry, so a metric name alone
    identifies a metric everywhere (thresholds, reports, calibration).
    """
    name = cls.name
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ValueError(f"an evaluator named {name!r} is already registered")
    if not cls.metrics:
        raise ValueError(f"evaluator {name!r} declares no metrics")
    unknown = set(cls.requires) - set(REQUIRABLE_FIELDS)
    if unknown:
        raise ValueError(f"evaluator {name!r} requires unknown fields {sorted(unknown)}")
    for metric in cls.metric_names():
        owner = _METRIC_OWNERS.get(metric)
        if owner is not None and owner != name:
            raise ValueError(f"metric {metric!r} of {name!r} is already declared by {owner!r}")
    for metric in cls.metric_names():
        _METRIC_OWNERS[metric] = name
    _REGISTRY[name] = cls
    return cls


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    import assay.evaluators as package

    for module in pkgutil.iter_modules(package.__path__):
        if module.name not in ("base", "registry"):
            importlib.import_module(f"{package.__name__}.{module.name}")
    _discovered = True


def evaluator_names() -> list[str]:
    """Names of all registered evaluators, sorted."""
    _discover()
    return sorted(_REGISTRY)


def evaluator_class(name: str) -> type[Evaluator]:
    """The evaluator class registered as ``name``."""
    _discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, _REGISTRY, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise InvalidInputError(
            f"Unknown evaluator {name!r}.{hint} Run 'assay evaluators' for the catalogue."
        ) from None


def get_evaluator(name: str, **params: Any) -> Evaluator:
    """Instantiate the evaluator ``name`` with ``params``.

    Example:
        >>> get_evaluator("exact_match").name
        'exact_match'
    """
    cls = evaluator_class(name)
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidInputError(f"Invalid parameters for evaluator {name!r}: {exc}") from None


def metric_owner(metric: str) -> str:
    """Name of the evaluator that declares ``metric``."""
    _discover()
    try:
        return _METRIC_OWNERS[metric]
    except KeyError:
        raise InvalidInputError(f"Unknown metric {metric!r}") from None


def catalogue() -> list[dict[str, Any]]:
    """One description per registered evaluator, for listings and generated docs."""
    _discover()
    rows = []
    for name in sorted(_REGISTRY):
        cls = _REGISTRY[name]
        rows.append(
            {
                "name": name,
                "family": cls.family,
                "description": cls.description,
                "requires": list(cls.requires),
                "reproducible": cls.reproducible,
                "extra": cls.extra,
                "metrics": [m.to_dict() for m in cls.metrics],
            }
        )
    return rows
