"""Opt-in person-name detection with spaCy: verification, errors, and (when installed) results."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from assay.errors import BackendError, MissingDependencyError
from assay.safety import find_pii, names


def test_unverified_weights_are_refused(tmp_path: Path) -> None:
    (tmp_path / "ner").mkdir()
    (tmp_path / "ner" / "model").write_bytes(b"tampered")
    with pytest.raises(BackendError, match="refusing to use an unverified model"):
        names._verify(SimpleNamespace(path=tmp_path), names.SPACY_MODEL)
    with pytest.raises(BackendError, match="cannot find the NER weights"):
        names._verify(SimpleNamespace(path=None), names.SPACY_MODEL)


def test_missing_spacy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    names._pipeline.cache_clear()
    monkeypatch.setitem(sys.modules, "spacy", None)
    try:
        with pytest.raises(MissingDependencyError, match=r"assay\[ner\]"):
            find_pii("Jane Doe", ["PERSON"])
    finally:
        names._pipeline.cache_clear()


@pytest.fixture(scope="module")
def spacy_model() -> str:
    pytest.importorskip("spacy", reason="spaCy not installed (pip install 'assay[ner]')")
    try:
        names._pipeline(names.SPACY_MODEL)
    except BackendError as exc:
        pytest.skip(str(exc))
    return names.SPACY_MODEL


def test_person_names_found_and_masked(spacy_model: str) -> None:
    text = "Please block the card. My name is Aantje Mourik and my email is am@example.org."
    found = find_pii(text, ["PERSON", "EMAIL_ADDRESS"])
    assert [(f.kind, f.text) for f in found] == [
        ("PERSON", "Aantje Mourik"),
        ("EMAIL_ADDRESS", "am@example.org"),
    ]
    assert "Mourik" not in repr(found) and found[0].masked == "A***********k"


def test_unknown_pipeline_is_a_backend_error(spacy_model: str) -> None:
    with pytest.raises(BackendError, match="not installed"):
        names.find_names("Jane", model="no_such_pipeline_xyz")
