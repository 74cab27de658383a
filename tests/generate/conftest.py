"""Fixtures of the generation tests: the small test corpus in every supported format."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._fixtures import build_corpus


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test corpus (md, txt, html committed; pdf and docx written here)."""
    pytest.importorskip("pypdf", reason="needs the generate extra")
    pytest.importorskip("docx", reason="needs the generate extra")
    pytest.importorskip("bs4", reason="needs the generate extra")
    return build_corpus(tmp_path_factory.mktemp("corpus"))
