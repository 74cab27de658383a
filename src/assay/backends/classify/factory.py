"""Turning a toxicity or bias spec into a ready classifier, once per process.

Toxicity specs: ``"head"`` (the toxicity head shipped with assay: six categories on frozen
all-MiniLM-L6-v2 vectors, sha256-verified; the offline default), ``"head+profanity"`` (the head
and the profanity model, equal weights), ``"profanity-check"`` (alt-profanity-check's offensive-
language model, sha256-verified), ``"detoxify"`` or ``"detoxify:unbiased"`` /
``"detoxify:multilingual"`` (weights must be present locally), ``"ensemble"`` (profanity-check +
detoxify, equal weights), ``"auto"`` (that ensemble when the detoxify weights are present, else
the head), ``"hf:<name or path>"`` (any Hugging Face toxicity classifier, e.g.
``hf:unitary/toxic-bert``) and ``"fake"`` (the test keyword model).
Bias specs: ``"head"`` (the bias head shipped with assay, trained on SBIC; the default), a Hugging
Face name or path (reference ``d4data/bias-detection-model``), ``"fake"`` or ``"tiny"`` (a tiny
random model for plumbing tests).
"""

from __future__ import annotations

import logging

from assay.backends.classify.base import TextClassifier
from assay.backends.loaded import LoadedBackends
from assay.params import check

logger = logging.getLogger(__name__)
DEFAULT_TOXICITY = "auto"
DEFAULT_BIAS = "head"
TOXICITY_SPECS = ("auto", "head", "head+profanity", "profanity-check", "profanity", "offline",
                  "fake", "detoxify", "ensemble")
_LOADED: LoadedBackends[TextClassifier] = LoadedBackends(
    TextClassifier, "classifier", "get_classifier",
    "a spec string or an object with model_id and predict()")


def _toxicity(spec: str) -> TextClassifier:
    from assay.backends.classify import detoxify_backend
    from assay.backends.classify.ensemble import EnsembleClassifier
    from assay.backends.classify.head import HeadClassifier
    from assay.backends.classify.profanity import ProfanityCheckClassifier

    if spec == "head":
        return HeadClassifier("toxicity")
    if spec == "head+profanity":
        return EnsembleClassifier([HeadClassifier("toxicity"), ProfanityCheckClassifier()])
    if spec in ("profanity-check", "profanity", "offline"):
        return ProfanityCheckClassifier()
    if spec == "fake":
        from assay.backends.classify.fake import KeywordClassifier

        return KeywordClassifier()
    if spec == "detoxify" or spec.startswith("detoxify:"):
        return detoxify_backend.DetoxifyClassifier(spec.partition(":")[2] or "original")
    if spec == "ensemble":
        return EnsembleClassifier(
            [ProfanityCheckClassifier(), detoxify_backend.DetoxifyClassifier()])
    if spec == "auto":
        if detoxify_backend.weights_present("original"):
            logger.info("toxicity: detoxify weights found, using the ensemble")
            return _toxicity("ensemble")
        return HeadClassifier("toxicity")
    if spec.startswith("hf:"):
        from assay.backends.classify.hf_classifier import HFTextClassifier

        return HFTextClassifier(spec[3:], what="toxicity", examples="'unitary/toxic-bert'")
    raise ValueError(spec)


def _bias(spec: str) -> TextClassifier:
    if spec == "fake":
        from assay.backends.classify.fake import KeywordClassifier, bias_words

        return KeywordClassifier(bias_words(), categories=("Non-biased", "Biased"))
    if spec == "head":
        from assay.backends.classify.head import HeadClassifier

        return HeadClassifier("bias")
    from assay.backends.classify.hf_classifier import HFTextClassifier

    if spec == "tiny":
        from assay.backends.tiny_models import tiny_bias_model

        spec = str(tiny_bias_model())
    return HFTextClassifier(spec, what="bias", examples="'d4data/bias-detection-model'")


def get_classifier(spec: str | TextClassifier, kind: str) -> TextClassifier:
    """Resolve a ``kind`` (``"toxicity"`` or ``"bias"``) spec; strings resolve once per process.

    Example:
        >>> get_classifier("fake", "toxicity").predict(["idiot"]).categories
        ('toxicity', 'insult')
    """
    if isinstance(spec, str):
        known = spec in TOXICITY_SPECS or spec.startswith(("detoxify:", "hf:"))
        check(kind == "bias" or known, "classifier", "get_classifier",
              "'auto', 'head', 'head+profanity', 'profanity-check', 'detoxify[:type]', "
              "'ensemble', 'hf:<model>' or 'fake'", spec)
    return _LOADED.resolve(spec, _toxicity if kind == "toxicity" else _bias, key=(kind, spec))


def clear_loaded() -> None:
    """Forget the classifiers loaded in this process."""
    _LOADED.clear()
