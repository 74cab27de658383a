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


def test_evaluators_hold_state_one_way() -> None:
    """State beside an evaluator's parameters (models, judge sessions, memos) is held through
    ``ResolvesOnce`` (``resolve_once`` + ``unpickled``), never a hand-written ``__getstate__``."""
    evaluators = SRC / "evaluators"
    hand_written = [
        f"{path.relative_to(SRC.parent)}:{node.lineno}"
        for path in sorted(evaluators.rglob("*.py")) if path.name != "resolved.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name in ("__getstate__", "__setstate__")
    ]
    assert not hand_written, hand_written


#: The layers of docs/architecture.md, bottom up: a module imports its own layer and those below.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "params", "fileio", "registry", "_version", "_lazy", "text", "matching", "safety",
     "memory", "progress"),
    ("data", "traces", "corpus"),
    ("backends",),
    ("evaluators", "agents", "attacks"),
    ("engine", "generate", "perturb", "runner", "calibrate", "analyze", "rundir"),
    ("report", "gating", "pipeline"),
    ("verdict", "label"),
    ("cli", "demo", "testing", "__init__"),
)
#: Upward imports tolerated for now: (importing file, imported module) -> why. Empty since the
#: shared helpers moved down a layer; nothing may be added here without a note in
#: docs/architecture.md.
KNOWN_UPWARD: dict[tuple[str, str], str] = {}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "assay":
        return None
    top = parts[1] if len(parts) > 1 else "__init__"
    return next((i for i, names in enumerate(LAYERS) if top in names), -1)


def _upward_imports() -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        mine = _layer(_module_name(path))
        for line, name in imports(path):
            other = _layer(name)
            if other is None or mine is None or other <= mine:
                continue
            imported = _real_module(name)
            found.setdefault((rel, imported), f"{rel}:{line} (layer {mine}) imports {name} "
                                              f"(layer {other})")
    return found


def _real_module(name: str) -> str:
    """The longest prefix of ``name`` that is a module file or package of ``src/assay``."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        path = SRC.parent.joinpath(*parts[:end])
        if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
            return ".".join(parts[:end])
    return name


def test_every_package_has_a_layer() -> None:
    tops = {p.relative_to(SRC).parts[0].removesuffix(".py") for p in SRC.rglob("*.py")}
    assert all(_layer(f"assay.{top}") != -1 for top in tops), sorted(
        top for top in tops if _layer(f"assay.{top}") == -1)


def test_no_import_goes_up_the_layers() -> None:
    found = _upward_imports()
    new = [where for key, where in found.items() if key not in KNOWN_UPWARD]
    assert not new, "imports against docs/architecture.md's layering:\n" + "\n".join(new)
    stale = [key for key in KNOWN_UPWARD if key not in found]
    assert not stale, f"no longer needed in KNOWN_UPWARD: {stale}"
