"""The import structure of ``src/assay`` (docs/architecture.md), checked on the source with ast."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, imported module)`` for every import statement of ``path`` (also inside
    functions), relative imports resolved against the module's package."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    yield from _imports_of(path.read_text(encoding="utf-8"), package, str(path))


def _imports_of(source: str, package: str, filename: str) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base
            for alias in node.names:  # `from assay import testing` imports a module too
                yield node.lineno, f"{base}.{alias.name}"


def production_modules() -> list[Path]:
    """Every module of the package except the test helpers in ``assay.testing``."""
    return [p for p in sorted(SRC.rglob("*.py")) if p.relative_to(SRC).parts[0] != "testing"]


def test_the_import_parser_sees_nested_and_relative_imports(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text("import a.b\nfrom c import d\ndef f():\n    from e import g\n",
                      encoding="utf-8")
    assert {name for _, name in _imports_of(module.read_text(encoding="utf-8"), "x", "x")} == {
        "a.b", "c", "c.d", "e", "e.g"}
    relative = _imports_of("from .base import x", "assay.evaluators", "m.py")
    assert {name for _, name in relative} == {"assay.evaluators.base", "assay.evaluators.base.x"}


def test_no_production_module_imports_the_test_helpers() -> None:
    offenders = [
        f"{path.relative_to(SRC.parent)}:{line} imports {name}"
        for path in production_modules()
        for line, name in imports(path)
        if name == "assay.testing" or name.startswith("assay.testing.")
    ]
    assert not offenders, "\n".join(offenders)


def test_production_classes_carry_no_test_hooks() -> None:
    """Test doubles are backends named by spec (``assay.testing.with_test_doubles``), not
    ``for_testing()`` classmethods on production classes."""
    hooks = [
        f"{path.relative_to(SRC.parent)}:{node.lineno}"
        for path in production_modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == "for_testing"
    ]
    assert not hooks, hooks
