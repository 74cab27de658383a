"""Turning an NLI spec (a string or an instance) into a ready model, once per process.

Specs: any Hugging Face model name (e.g. ``"cross-encoder/nli-deberta-v3-base"``, needs network
access once), the path of a local folder, ``"fake"`` (the deterministic test model) or ``"tiny"``
(a tiny random transformers model built on the fly, for plumbing tests only).
"""

from __future__ import annotations

from assay.backends.loaded import LoadedBackends
from assay.backends.nli.base import NLIModel

#: Recommended NLI cross-encoder (not available offline: pass a local path there).
DEFAULT_NLI = "cross-encoder/nli-deberta-v3-base"
#: Recommended factual-consistency model (needs ``trust_remote_code=True``).
DEFAULT_HHEM = "vectara/hallucination_evaluation_model"
_LOADED: LoadedBackends[NLIModel] = LoadedBackends(
    NLIModel, "nli", "get_nli", "a spec string or an object with model_id and predict()")


def _build(spec: str) -> NLIModel:
    if spec == "fake":
        from assay.backends.nli.fake import FakeNLI

        return FakeNLI()
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
    """
    return _LOADED.resolve(spec, _build)


def clear_loaded() -> None:
    """Forget the NLI models loaded in this process."""
    _LOADED.clear()
