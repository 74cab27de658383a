"""The bundled banking RAG demo: corpus, suite with three models' answers, human labels."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from assay.evaluators.registry import catalogue


def demo_dir() -> Path:
    """Folder of the demo's package data."""
    return Path(str(files("assay.demo")))


def demo_suite_path() -> Path:
    """Path of the demo suite (JSONL)."""
    return demo_dir() / "suite.jsonl"


def demo_evaluators() -> list[str]:
    """Every registered evaluator that is reproducible and needs no optional extra."""
    return [row["name"] for row in catalogue() if row["reproducible"] and not row["extra"]]
