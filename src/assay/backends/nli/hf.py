"""Loading Hugging Face sequence classifiers (NLI, consistency, bias) by name or local path.

Shared by the NLI and text-classification backends; torch and transformers are imported here,
lazily. A model that cannot be loaded gives one message saying how to provide one.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

from assay.errors import BackendError, require

_LOCK = threading.Lock()
#: Where the classifier head lives, tried in order (the first ``nn.Linear`` with one output per
#: label wins): ``classifier.out_proj`` (RoBERTa, XLM-R, ELECTRA, MPNet, DeBERTa-v1 style heads),
#: ``classification_head.out_proj`` (BART, mBART), ``classifier`` (BERT, ALBERT, DistilBERT,
#: DeBERTa-v2/v3, ModernBERT), ``score`` (decoder-only models such as Llama/Qwen classifiers).
HEAD_PATHS = ("classifier.out_proj", "classification_head.out_proj", "classifier", "score")


def offline_mode() -> bool:
    """Whether ``HF_HUB_OFFLINE`` asks never to reach the Hugging Face Hub."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes")


def how_to_provide(what: str, examples: str, extra: str) -> str:
    """The standard advice appended to a failed model load.

    Example:
        >>> "local folder" in how_to_provide("NLI", "cross-encoder/nli-deberta-v3-base", "nli")
        True
    """
    return (
        f"No {what} model ships offline with assay. With network access pass a Hugging Face "
        f"model name (e.g. {examples}; downloaded once into the Hugging Face cache), or pass the "
        "path of a local folder holding config.json, the weights and the tokenizer files "
        "(write one with model.save_pretrained(path) and tokenizer.save_pretrained(path)). "
        f"Requires: pip install 'assay[{extra}]'."
    )


def load_classifier(
    spec: str, *, what: str, examples: str, extra: str, trust_remote_code: bool = False
) -> tuple[Any, Any]:
    """Load ``(tokenizer, model)`` of a sequence-classification model, in eval mode on CPU.

    Raises:
        MissingDependencyError: torch or transformers is not installed.
        BackendError: the model cannot be loaded (the message says how to provide one).
    """
    require("torch", extra=extra, package="torch==2.13.0")
    require("transformers", extra=extra)
    import transformers

    from assay.backends.embed.sentence_transformers import _quiet_transformers

    _quiet_transformers()
    local = Path(spec).expanduser()
    is_local = local.is_dir()
    if not is_local and spec.startswith((".", "/", "~")):
        raise BackendError(
            f"the {what} model folder {spec!r} does not exist. "
            + how_to_provide(what, examples, extra)
        )
    source = str(local) if is_local else spec
    with _LOCK:
        try:
            kwargs: dict[str, Any] = {"trust_remote_code": trust_remote_code}
            if is_local or offline_mode():
                kwargs["local_files_only"] = True
            tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
            model = transformers.AutoModelForSequenceClassification.from_pretrained(
                source, **kwargs
            )
        except Exception as exc:
            raise BackendError(
                f"could not load the {what} model {spec!r} ({type(exc).__name__}: "
                f"{str(exc)[:300]}). " + how_to_provide(what, examples, extra)
            ) from exc
    model.eval()
    return tokenizer, model


def max_length_of(tokenizer: Any, model: Any, cap: int = 512) -> int:
    """The usable input length: the tokenizer's limit, the model's positions, ``cap``."""
    limits = [cap]
    value = getattr(tokenizer, "model_max_length", None)
    if isinstance(value, int) and 0 < value < 1_000_000:
        limits.append(value)
    positions = getattr(model.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        # RoBERTa-style models reserve padding_idx + 1 positions
        offset = 2 if getattr(model.config, "model_type", "") in ("roberta", "xlm-roberta") else 0
        limits.append(positions - offset)
    return min(limits)


def head_layer(model: Any, num_labels: int) -> tuple[str, Any]:
    """``(path, nn.Linear)`` of the final classification layer (one output row per label).

    :data:`HEAD_PATHS` are tried first; otherwise the last ``nn.Linear`` with ``num_labels``
    outputs in module order is taken. :class:`BackendError` when there is none.
    """
    import torch

    for path in HEAD_PATHS:
        module: Any = model
        for part in path.split("."):
            module = getattr(module, part, None)
            if module is None:
                break
        if isinstance(module, torch.nn.Linear) and module.out_features == num_labels:
            return path, module
    candidates = [
        (name, module)
        for name, module in model.named_modules()
        if isinstance(module, torch.nn.Linear) and module.out_features == num_labels
    ]
    if candidates:
        return candidates[-1]
    raise BackendError(
        f"could not find the linear classification head of {type(model).__name__} (looked for "
        f"{', '.join(HEAD_PATHS)} and any nn.Linear with {num_labels} outputs); the HCAT "
        "distance needs it: use a model with a linear head"
    )


def weights_identity(spec: str) -> str:
    """``name@sha256:<16 hex>`` of the local weights where known, else ``name@unverified``."""
    from assay.backends.embed.sentence_transformers import _identity

    with contextlib.suppress(Exception):
        return _identity(spec)
    return f"{spec}@unverified"
