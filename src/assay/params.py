"""Parameters of public callables: one message template for checking them (DESIGN §6) and the
checks most parameters need (a choice, a count), one way to read a component's constructor
parameters back, and one way to pickle a component as them."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from numbers import Integral
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
        from assay.safety.credentials import redact_settings

        shown = redact_settings({name: got})[name]  # a refused credential is named, never shown
        raise InvalidInputError(
            f"The {name!r} parameter of {where} must be {expected}; got {shown!r} instead."
        )


def check_choice(value: Any, choices: Iterable[Any], name: str, where: str) -> None:
    """Raise :class:`InvalidInputError` unless ``value`` is one of ``choices`` (a parameter
    that names a method, a mode or a field), with the choices listed in the message.

    Example:
        >>> check_choice("max", ("mean", "max"), "aggregate", "kfold_threshold")
        >>> check_choice("sum", ("mean", "max"), "aggregate", "f")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: ... must be 'mean' or 'max'; got 'sum' instead.
        >>> check_choice("x", {"a": 1, "b": 2, "c": 3}, "mode", "f")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: ... must be one of 'a', 'b', 'c'; got 'x' instead.
    """
    options = tuple(choices)
    if len(options) == 2:
        expected = f"{options[0]!r} or {options[1]!r}"
    else:
        expected = "one of " + ", ".join(map(repr, options))
    check(value in options, name, where, expected, value)


def check_int(value: Any, name: str, where: str, *, minimum: int = 1) -> None:
    """Raise :class:`InvalidInputError` unless ``value`` is an integer (not a bool) of at least
    ``minimum`` (a count, a size, a number of rounds).

    Example:
        >>> check_int(3, "k", "precision_at_k")
        >>> check_int(True, "k", "f")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: ... must be a positive integer; got True instead.
        >>> check_int(-1, "n", "f", minimum=0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        assay.errors.InvalidInputError: ... must be a non-negative integer; got -1 instead.
    """
    expected = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}"
    )
    ok = isinstance(value, Integral) and not isinstance(value, bool) and int(value) >= minimum
    check(ok, name, where, expected, value)


def constructor_params(obj: object, *, jsonable: bool = False) -> dict[str, Any]:
    """The parameters of ``type(obj).__init__`` and their current values (scikit-learn style:
    each is stored under an attribute of the same name); ``*args`` / ``**kwargs`` are left out.

    Evaluators, perturbations and calibrators all use it for ``get_params``.

    Args:
        obj: the configured component.
        jsonable: replace a value that is not None, str, int, float, bool, list, dict or tuple by
            its ``repr`` (for manifests).

    Example:
        >>> class Typos:
        ...     def __init__(self, rate=0.1, rng=None, *args):
        ...         self.rate, self.rng = rate, rng
        >>> constructor_params(Typos(0.2, rng=object()), jsonable=True)["rate"]
        0.2
        >>> constructor_params(Typos(), jsonable=True)
        {'rate': 0.1, 'rng': None}
    """
    signature = inspect.signature(type(obj).__init__)
    params: dict[str, Any] = {}
    for name, p in signature.parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        value = getattr(obj, name)
        ok = value is None or isinstance(value, str | int | float | bool | list | dict | tuple)
        params[name] = value if ok or not jsonable else repr(value)
    return params


class PickledAsParams:
    """Mixin: the object pickles as its constructor parameters (read by
    :func:`constructor_params`) and is rebuilt by its constructor where it is unpickled, so a
    loaded model, a lock, an open database or a memory cache starts afresh there (loaded again
    on first use) instead of travelling.

    Example:
        >>> import copy
        >>> class Model(PickledAsParams):
        ...     def __init__(self, path: str = "m.bin") -> None:
        ...         self.path, self.loaded = path, None
        >>> model = Model("x.bin")
        >>> model.loaded = "weights"
        >>> clone = copy.copy(model)  # as pickle.loads(pickle.dumps(model)) does
        >>> clone.path, clone.loaded
        ('x.bin', None)
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (_construct, (type(self), constructor_params(self)))


def _construct(cls: type[Any], params: dict[str, Any]) -> Any:
    """``cls(**params)``: how :class:`PickledAsParams` objects are unpickled."""
    return cls(**params)
