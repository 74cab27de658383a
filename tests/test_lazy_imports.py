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
)


def test_import_assay_and_registry_import_nothing_heavy() -> None:
    code = (
        "import sys, assay; assay.evaluator_names(); "
        f"print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
