"""``import assay`` must stay light (DESIGN §5)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = (
    "torch",
    "transformers",
    "ray",
    "sentence_transformers",
    "llama_cpp",
    "openai",
    "sklearn",
    "lightgbm",
    "umap",
    "langchain_core",
    "llama_index",
)


def test_import_assay_and_registry_import_nothing_heavy() -> None:
    code = (
        "import sys, assay; assay.evaluator_names(); "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


#: What ``import assay``, ``assay --help`` and the pytest plugin must not load (issue 21).
EAGER_BEFORE = ("numpy", "pandas", "pyarrow", "scipy", "sklearn", "torch", "pydantic")


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint('LOADED:' + ','.join(m for m in {EAGER_BEFORE!r} " \
            "if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return [m for m in [line for line in out if line.startswith("LOADED:")][-1][7:].split(",") if m]


def test_import_assay_help_and_the_pytest_plugin_load_no_data_library() -> None:
    assert _loaded_after("import assay") == []
    assert _loaded_after("import pytest, assay.gating.plugin") == []
    help_code = ("import sys; sys.argv = ['assay', '--help']\nfrom assay.cli.main import main\n"
                 "try:\n    main()\nexcept SystemExit:\n    pass")
    assert _loaded_after(help_code) == []


def test_public_names_resolve_on_first_access() -> None:
    code = ("import assay, sys; before = 'pandas' in sys.modules; suite = assay.TestSuite; "
            "print(before, suite.__module__, sorted(set(assay.__all__) - set(dir(assay))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "assay.data.suite", "[]"]
