"""Turning a toxicity or bias spec into a ready classifier, once per process.

Toxicity specs: ``"head"`` (the toxicity head shipped with assay as the offline default: the
tuned head, ``"head-tuned"``: all-MiniLM-L6-v2 with its last layer fine-tuned for toxicity, run
on the shared MiniLM pass, and a token head on top; six categories, sha256-verified; design notes
0044, 0045), ``"head-sentence"`` (the sentence head: the same categories from frozen MiniLM
sentence vectors; the default before 0045), ``"head-token"`` (the token toxicity head: attention
pooling over frozen MiniLM token vectors; design note 0038), ``"head-ensemble"`` (the sentence
and token heads' category scores averaged, one MiniLM pass; design note 0040),
``"head+profanity"`` (the default head and the profanity model, equal weights),
``"profanity-check"`` (alt-profanity-check's offensive-language model, sha256-verified),
``"detoxify"`` or ``"detoxify:unbiased"`` / ``"detoxify:multilingual"`` (weights must be present
locally), ``"ensemble"`` (profanity-check + detoxify, equal weights), ``"auto"`` (that ensemble
when the detoxify weights are present, else the default head), ``"hf:<name or path>"`` (any
Hugging Face toxicity classifier, e.g. ``hf:unitary/toxic-bert``) and ``"fake"`` (the test
keyword model).
Bias specs: ``"head"`` (the bias head shipped with assay, trained on SBIC; the default), a Hugging
Face name or path (reference ``d4data/bias-detection-model``), ``"fake"`` or ``"tiny"`` (a tiny
random model for plumbing tests). Resolved by :mod:`assay.backends.resolve`.
"""

from __future__ import annotations

import logging

from assay.backends.classify.base import TextClassifier
from assay.backends.resolve import BackendFamily, resolve
from assay.params import check_choice

logger = logging.getLogger(__name__)
DEFAULT_TOXICITY = "auto"
DEFAULT_BIAS = "head"
#: The shipped toxicity head behind ``"head"`` and ``"auto"`` (design note 0045).
DEFAULT_TOXICITY_HEAD = "toxicity-tuned"
_EXPECTED = "a spec string or an object with model_id and predict()"


def _head(kind: str) -> TextClassifier:
    from assay.backends.classify.head import HeadClassifier

    return HeadClassifier(kind)


def _profanity(argument: str) -> TextClassifier:
    from assay.backends.classify.profanity import ProfanityCheckClassifier

    return ProfanityCheckClassifier()


def _head_and_profanity(argument: str) -> TextClassifier:
    from assay.backends.classify.ensemble import EnsembleClassifier

    return EnsembleClassifier([_head(DEFAULT_TOXICITY_HEAD), _profanity("")])


def _head_ensemble(argument: str) -> TextClassifier:
    from assay.backends.classify.ensemble import EnsembleClassifier

    # The token head first: its one call encodes vectors and token matrices together, and the
    # sentence head then finds its vectors in the embedder's cache.
    return EnsembleClassifier([_head("toxicity-token"), _head("toxicity")], combine="categories")


def _detoxify(variant: str) -> TextClassifier:
    from assay.backends.classify.detoxify_backend import DetoxifyClassifier

    return DetoxifyClassifier(variant or "original")


def _ensemble(argument: str) -> TextClassifier:
    from assay.backends.classify.ensemble import EnsembleClassifier

    return EnsembleClassifier([_profanity(""), _detoxify("")])


def _auto(argument: str) -> TextClassifier:
    from assay.backends.classify import detoxify_backend

    if detoxify_backend.weights_present("original"):
        logger.info("toxicity: detoxify weights found, using the ensemble")
        return _ensemble("")
    return _head(DEFAULT_TOXICITY_HEAD)


def _keywords(argument: str) -> TextClassifier:
    from assay.backends.classify.fake import KeywordClassifier

    return KeywordClassifier()


def _hf_toxicity(name: str) -> TextClassifier:
    from assay.backends.classify.hf_classifier import HFTextClassifier

    return HFTextClassifier(name, what="toxicity", examples="'unitary/toxic-bert'")


def _bias_keywords(argument: str) -> TextClassifier:
    from assay.backends.classify.fake import KeywordClassifier, bias_words

    return KeywordClassifier(bias_words(), categories=("Non-biased", "Biased"))


def _hf_bias(spec: str) -> TextClassifier:
    from assay.backends.classify.hf_classifier import HFTextClassifier

    return HFTextClassifier(spec, what="bias", examples="'d4data/bias-detection-model'")


def _tiny_bias(argument: str) -> TextClassifier:
    from assay.backends.tiny_models import tiny_bias_model

    return _hf_bias(str(tiny_bias_model()))


TOXICITY: BackendFamily[TextClassifier] = BackendFamily(
    "toxicity", TextClassifier, where="get_classifier", expected=_EXPECTED,
    param="classifier")
for _name, _build in (("auto", _auto), ("head", lambda _: _head(DEFAULT_TOXICITY_HEAD)),
                      ("head-sentence", lambda _: _head("toxicity")),
                      ("head-token", lambda _: _head("toxicity-token")),
                      ("head-tuned", lambda _: _head("toxicity-tuned")),
                      ("head-ensemble", _head_ensemble),
                      ("head+profanity", _head_and_profanity), ("profanity-check", _profanity),
                      ("profanity", _profanity), ("offline", _profanity), ("fake", _keywords),
                      ("detoxify", _detoxify), ("ensemble", _ensemble), ("hf", _hf_toxicity)):
    TOXICITY.register(_name, _build)
BIAS: BackendFamily[TextClassifier] = BackendFamily(
    "bias", TextClassifier, where="get_classifier", expected=_EXPECTED, fallback=_hf_bias,
    param="classifier")
BIAS.register("fake", _bias_keywords)
BIAS.register("head", lambda _: _head("bias"))
BIAS.register("tiny", _tiny_bias)
_FAMILIES = {"toxicity": TOXICITY, "bias": BIAS}


def get_classifier(spec: str | TextClassifier, kind: str) -> TextClassifier:
    """Resolve a ``kind`` (``"toxicity"`` or ``"bias"``) spec; strings resolve once per process.

    Example:
        >>> get_classifier("fake", "toxicity").predict(["idiot"]).categories
        ('toxicity', 'insult')
    """
    check_choice(kind, _FAMILIES, "kind", "get_classifier")
    return resolve(_FAMILIES[kind], spec)


__all__ = ["BIAS", "DEFAULT_BIAS", "DEFAULT_TOXICITY", "TOXICITY", "get_classifier"]
