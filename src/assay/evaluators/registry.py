"""The evaluator registry: evaluators register by name and are found by name.

Every module in :mod:`assay.evaluators` is imported on first lookup, so adding an evaluator is
adding a module; those modules must not import heavy libraries at import time (DESIGN §5).
Installed packages add evaluators through the entry-point group ``assay.evaluators``
(docs/architecture.md).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, TypeVar

from assay.errors import InvalidInputError
from assay.evaluators.base import REQUIRABLE_FIELDS, Evaluator
from assay.registry import GROUPS, Registry

E = TypeVar("E", bound=type[Evaluator])

_METRIC_OWNERS: dict[str, str] = {}


def _check(name: str, cls: type[Evaluator]) -> None:
    """Refuse an evaluator whose name, metrics or required fields clash or are unknown."""
    if not (isinstance(cls, type) and issubclass(cls, Evaluator)):
        raise InvalidInputError(f"evaluator {name!r} is not an Evaluator subclass: {cls!r}")
    if cls.name != name:
        raise InvalidInputError(f"evaluator {cls.__name__} is named {cls.name!r}, not {name!r}")
    if not cls.metrics:
        raise InvalidInputError(f"evaluator {name!r} declares no metrics")
    unknown = set(cls.requires) - set(REQUIRABLE_FIELDS)
    if unknown:
        raise InvalidInputError(f"evaluator {name!r} requires unknown fields {sorted(unknown)}")
    for metric in cls.metric_names():
        owner = _METRIC_OWNERS.get(metric)
        if owner is not None and owner != name:
            raise InvalidInputError(
                f"metric {metric!r} of {name!r} is already declared by {owner!r}")
    for metric in cls.metric_names():
        _METRIC_OWNERS[metric] = name


def _discover() -> None:
    import assay.evaluators as package

    for module in pkgutil.iter_modules(package.__path__):
        if module.name not in ("base", "registry"):
            importlib.import_module(f"{package.__name__}.{module.name}")


#: The evaluators: assay's own modules, and plugins of the entry-point group ``assay.evaluators``.
EVALUATORS: Registry[type[Evaluator]] = Registry(
    "evaluator", GROUPS["evaluator"], discover=_discover, validate=_check,
    hint=" Run 'assay evaluators' for the catalogue.")


def register(cls: E) -> E:
    """Class decorator that registers an evaluator under ``cls.name``.

    Evaluator names and metric names are unique across the whole registry, so a metric name alone
    identifies a metric everywhere (thresholds, reports, calibration).
    """
    EVALUATORS.register(cls.name, cls)
    return cls


def evaluator_names() -> list[str]:
    """Names of all registered evaluators (plugins included), sorted."""
    return EVALUATORS.names()


def evaluator_class(name: str) -> type[Evaluator]:
    """The evaluator class registered as ``name``."""
    return EVALUATORS.get(name)


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
    EVALUATORS.load_all()
    try:
        return _METRIC_OWNERS[metric]
    except KeyError:
        raise InvalidInputError(f"Unknown metric {metric!r}") from None


def catalogue() -> list[dict[str, Any]]:
    """One description per registered evaluator, for listings and generated docs."""
    rows = []
    for name, cls in sorted(EVALUATORS.load_all().items()):
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
