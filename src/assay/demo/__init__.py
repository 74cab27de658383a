"""The bundled banking RAG demo: corpus, suite with three models' answers, human labels."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from assay.evaluators.registry import catalogue


def demo_dir() -> Path:
    """Folder of the demo's package data."""
    return Path(str(files("assay.demo")))


def demo_suite_path() -> Path:
    """Path of the demo suite (JSONL)."""
    return demo_dir() / "suite.jsonl"


def demo_corpus_dir() -> Path:
    """Folder of the demo's policy documents (one Markdown file per document).

    Example:
        >>> len(list(demo_corpus_dir().glob("*.md")))
        20
    """
    return demo_dir() / "corpus"


def demo_chunks_path() -> Path:
    """Path of the demo's chunks (JSONL: ``id``, ``doc``, ``topic``, ``title``, ``text``)."""
    return demo_dir() / "chunks.jsonl"


def demo_chunks() -> list[dict[str, Any]]:
    """The chunks of the demo corpus, in corpus order; ids look like ``fees-01#2``.

    Example:
        >>> chunks = demo_chunks()
        >>> chunks[0]["id"], sorted(chunks[0])
        ('business-01#1', ['doc', 'id', 'text', 'title', 'topic'])
    """
    with demo_chunks_path().open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def demo_labels_path() -> Path:
    """Path of the demo's human labels (CSV: ``id``, ``model``, ``correct``, ``grounded``, ``quality``).

    The same labels are in the ``labels`` field of the suite's cases.
    """
    return demo_dir() / "labels.csv"


def demo_evaluators() -> list[str]:
    """Every registered evaluator that is reproducible and needs no optional extra."""
    return [row["name"] for row in catalogue() if row["reproducible"] and not row["extra"]]
