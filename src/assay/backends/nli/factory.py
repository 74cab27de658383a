"""Turning an NLI spec (a string or an instance) into a ready model, once per process.

Specs: ``"head"`` (the default: assay's shipped NLI head over the offline MiniLM vectors, see
:mod:`assay.backends.nli.head_nli`), any Hugging Face model name (e.g.
``"cross-encoder/nli-deberta-v3-base"``, needs network access once), the path of a local folder
(a Hugging Face model, or a head folder written by ``scripts/train_heads.py``), ``"fake"`` (the
deterministic test model) or ``"tiny"`` (a tiny random transformers model built on the fly, for
plumbing tests only).
"""

from __future__ import annotations

from pathlib import Path

from assay.backends.loaded import LoadedBackends
from assay.backends.nli.base import NLIModel

#: The default NLI model: assay's shipped head (offline, sha256-verified).
DEFAULT_NLI = "head"
#: The recommended NLI cross-encoder where it can be installed (not available offline).
REFERENCE_NLI = "cross-encoder/nli-deberta-v3-base"
#: Recommended factual-consistency model (needs ``trust_remote_code=True``).
DEFAULT_HHEM = "vectara/hallucination_evaluation_model"
_LOADED: LoadedBackends[NLIModel] = LoadedBackends(
    NLIModel, "nli", "get_nli", "a spec string or an object with model_id and predict()")


def _build(spec: str) -> NLIModel:
    if spec == "fake":
        from assay.backends.nli.fake import FakeNLI

        return FakeNLI()
    from assay.backends.heads.store import HEADER
    from assay.backends.nli.head_nli import ALIASES, HeadNLI

    if spec in ALIASES:
        return HeadNLI()
    if (Path(spec) / HEADER).is_file():
        return HeadNLI(spec)
    from assay.backends.nli.transformers_nli import TransformersNLI

    if spec == "tiny":
        from assay.backends.tiny_models import tiny_nli_model

        return TransformersNLI(str(tiny_nli_model()))
    if spec == "tiny-hhem":
        from assay.backends.tiny_models import tiny_consistency_model

        return TransformersNLI(str(tiny_consistency_model()))
    return TransformersNLI(spec, trust_remote_code=spec == DEFAULT_HHEM)


def get_nli(spec: str | NLIModel = DEFAULT_NLI) -> NLIModel:
    """Resolve ``spec`` into an :class:`NLIModel`; a string is resolved once per process.

    Example:
        >>> get_nli("fake").predict(["It rains."], ["It rains."]).labels
        ('entailment', 'neutral', 'contradiction')
        >>> get_nli().model_id.startswith("assay-head-nli@sha256:")
        True
    """
    return _LOADED.resolve(spec, _build)


def clear_loaded() -> None:
    """Forget the NLI models loaded in this process."""
    _LOADED.clear()
