"""Parameters of public callables: one message template for checking them (DESIGN §6), one
way to read a component's constructor parameters back, and one way to pickle a component as
them."""

from __future__ import annotations

import inspect
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
