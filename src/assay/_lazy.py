"""PEP 562 lazy attributes for package ``__init__`` modules that must import cheaply."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``names[name]`` (a module) on first access to
    ``name`` and keeps the value in the package's namespace.

    Example:
        >>> import types; sys.modules["demo_pkg"] = types.ModuleType("demo_pkg")
        >>> getter = lazy_attributes("demo_pkg", {"Fraction": "fractions"})
        >>> getter("Fraction").__name__, "Fraction" in vars(sys.modules["demo_pkg"])
        ('Fraction', True)
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
