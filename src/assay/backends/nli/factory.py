"""Turning an NLI spec (a string or an instance) into a ready model, once per process.

Specs: ``"head"`` (the default: assay's shipped NLI head over the offline MiniLM sentence
vectors, also ``"head-sentence"``), ``"head-token"`` (the shipped head over MiniLM token
vectors; see :mod:`assay.backends.nli.head_nli`), any Hugging Face model name (e.g.
``"cross-encoder/nli-deberta-v3-base"``, needs network access once), the path of a local folder
(a Hugging Face model, or a head folder written by ``scripts/train_heads.py``), ``"fake"`` (the
deterministic test model), ``"tiny"`` and ``"tiny-hhem"`` (tiny random transformers models built
on the fly, for plumbing tests only). Resolved by :mod:`assay.backends.resolve`.
"""

from __future__ import annotations

from pathlib import Path

from assay.backends.nli.base import NLIModel
from assay.backends.resolve import BackendFamily, resolve

#: The default NLI model: assay's shipped head (offline, sha256-verified).
DEFAULT_NLI = "head"
#: The recommended NLI cross-encoder where it can be installed (not available offline).
REFERENCE_NLI = "cross-encoder/nli-deberta-v3-base"
#: Recommended factual-consistency model (needs ``trust_remote_code=True``).
DEFAULT_HHEM = "vectara/hallucination_evaluation_model"


def _fake(argument: str) -> NLIModel:
    from assay.backends.nli.fake import FakeNLI

    return FakeNLI()


def _head(argument: str) -> NLIModel:
    from assay.backends.nli.head_nli import HeadNLI

    return HeadNLI()


def _token_head(argument: str) -> NLIModel:
    from assay.backends.nli.head_nli import HeadNLI

    return HeadNLI("nli-token")


def _tiny(argument: str) -> NLIModel:
    from assay.backends.nli.transformers_nli import TransformersNLI
    from assay.backends.tiny_models import tiny_nli_model

    return TransformersNLI(str(tiny_nli_model()))


def _tiny_hhem(argument: str) -> NLIModel:
    from assay.backends.nli.transformers_nli import TransformersNLI
    from assay.backends.tiny_models import tiny_consistency_model

    return TransformersNLI(str(tiny_consistency_model()))


def _named(spec: str) -> NLIModel:
    """A head folder written by ``scripts/train_heads.py``, else a Hugging Face model."""
    from assay.backends.heads.store import HEADER

    if (Path(spec) / HEADER).is_file():
        from assay.backends.nli.head_nli import HeadNLI

        return HeadNLI(spec)
    from assay.backends.nli.transformers_nli import TransformersNLI

    return TransformersNLI(spec, trust_remote_code=spec == DEFAULT_HHEM)


NLI_MODELS: BackendFamily[NLIModel] = BackendFamily(
    "nli", NLIModel, where="get_nli",
    expected="a spec string or an object with model_id and predict()", fallback=_named)
NLI_MODELS.register("fake", _fake)
NLI_MODELS.register("head", _head)
NLI_MODELS.register("assay-nli-head", _head)
NLI_MODELS.register("head-sentence", _head)
NLI_MODELS.register("head-token", _token_head)
NLI_MODELS.register("tiny", _tiny)
NLI_MODELS.register("tiny-hhem", _tiny_hhem)


def get_nli(spec: str | NLIModel = DEFAULT_NLI) -> NLIModel:
    """Resolve ``spec`` into an :class:`NLIModel`; a string is resolved once per process.

    Example:
        >>> get_nli("fake").predict(["It rains."], ["It rains."]).labels
        ('entailment', 'neutral', 'contradiction')
        >>> get_nli().model_id.startswith("assay-head-nli@sha256:")
        True
    """
    return resolve(NLI_MODELS, spec)


__all__ = ["DEFAULT_HHEM", "DEFAULT_NLI", "NLI_MODELS", "REFERENCE_NLI", "get_nli"]
