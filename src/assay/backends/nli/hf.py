"""Loading Hugging Face models (NLI, consistency, bias classifiers, causal LMs) by name or path.

Shared by the NLI, text-classification and causal-LM backends: :class:`LazyHFModel` holds a model
loaded once on first use, :func:`load_pretrained` loads a tokenizer and a model. torch and
transformers are imported here, lazily. A model that cannot be loaded gives one message saying
how to provide one.
"""

from __future__ import annotations

import contextlib
import threading
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from assay.backends.offline import no_network, offline_advice, offline_mode
from assay.errors import BackendError, require

_LOCK = threading.Lock()
#: Where the classifier head lives, tried in order (the first ``nn.Linear`` with one output per
#: label wins): ``classifier.out_proj`` (RoBERTa, XLM-R, ELECTRA, MPNet, DeBERTa-v1 style heads),
#: ``classification_head.out_proj`` (BART, mBART), ``classifier`` (BERT, ALBERT, DistilBERT,
#: DeBERTa-v2/v3, ModernBERT), ``score`` (decoder-only models such as Llama/Qwen classifiers).
HEAD_PATHS = ("classifier.out_proj", "classification_head.out_proj", "classifier", "score")


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


def import_transformers(extra: str) -> Any:
    """The ``transformers`` module, once torch and transformers are known to be installed.

    Its weight-loading progress bars are switched off (the library never prints).

    Raises:
        MissingDependencyError: torch or transformers is not installed (names ``extra``).

    Example:
        >>> import_transformers("nli").__name__  # doctest: +SKIP
        'transformers'
    """
    require("torch", extra=extra, package="torch==2.13.0")
    transformers = require("transformers", extra=extra)
    from assay.backends.embed.sentence_transformers import _quiet_transformers

    _quiet_transformers()
    return transformers


def load_pretrained(
    auto_class: str, source: str, *, extra: str, failure: str, advice: str, **kwargs: Any
) -> tuple[Any, Any]:
    """Load ``(tokenizer, model)`` of ``source`` with ``AutoTokenizer`` and ``auto_class``.

    The model is put in eval mode; loads are serialised across threads. ``kwargs`` go to both
    ``from_pretrained`` calls.

    Args:
        auto_class: the transformers auto class of the model, e.g.
            ``"AutoModelForSequenceClassification"`` or ``"AutoModelForCausalLM"``.
        source: model name or folder.
        extra: the assay extra that installs torch and transformers.
        failure: what could not be done, the start of the error message.
        advice: how to provide a model, the end of the error message.

    Raises:
        MissingDependencyError: torch or transformers is not installed.
        BackendError: ``"<failure> (<error type>: <error>). <advice>"`` when loading fails.

    Example:
        >>> from assay.backends.tiny_models import tiny_causal_lm
        >>> tok, lm = load_pretrained("AutoModelForCausalLM", str(tiny_causal_lm()), extra="nli",
        ...                           failure="could not load it", advice="")  # doctest: +SKIP
        >>> lm.training  # doctest: +SKIP
        False
    """
    transformers = import_transformers(extra)
    offline = offline_mode()
    if offline:
        kwargs["local_files_only"] = True
        advice = f"{advice} {offline_advice()}".strip()
    with _LOCK, no_network(offline):
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
            model = getattr(transformers, auto_class).from_pretrained(source, **kwargs)
        except Exception as exc:
            raise BackendError(
                f"{failure} ({type(exc).__name__}: {str(exc)[:300]}). {advice}"
            ) from exc
    model.eval()
    return tokenizer, model


def load_classifier(
    spec: str, *, what: str, examples: str, extra: str, trust_remote_code: bool = False
) -> tuple[Any, Any]:
    """Load ``(tokenizer, model)`` of a sequence-classification model, in eval mode on CPU.

    Raises:
        MissingDependencyError: torch or transformers is not installed.
        BackendError: the model cannot be loaded (the message says how to provide one).
    """
    import_transformers(extra)  # a missing dependency is reported before a missing folder
    local = Path(spec).expanduser()
    is_local = local.is_dir()
    if not is_local and spec.startswith((".", "/", "~")):
        raise BackendError(
            f"the {what} model folder {spec!r} does not exist. "
            + how_to_provide(what, examples, extra)
        )
    kwargs: dict[str, Any] = {"trust_remote_code": trust_remote_code}
    if is_local or offline_mode():
        kwargs["local_files_only"] = True
    return load_pretrained(
        "AutoModelForSequenceClassification", str(local) if is_local else spec, extra=extra,
        failure=f"could not load the {what} model {spec!r}",
        advice=how_to_provide(what, examples, extra), **kwargs,
    )


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


class LazyHFModel(ABC):
    """A backend over a Hugging Face model: loaded once on first use, never pickled.

    Subclasses store the model name or path under ``model``, list their constructor state in
    ``_state`` (what pickling keeps), call :meth:`_reset` at the end of ``__init__`` (extending it
    with what they derive while loading) and implement :meth:`_load`.

    Example:
        >>> import copy
        >>> class Echo(LazyHFModel):
        ...     def __init__(self, model: str) -> None:
        ...         self.model = model
        ...         self._reset()
        ...     def _load(self) -> tuple[str, str]:
        ...         return "tokenizer", self.model.upper()
        >>> echo = Echo("tiny")
        >>> echo.load(), echo.load() is echo.load(), echo
        (('tokenizer', 'TINY'), True, Echo('tiny'))
        >>> echo.__getstate__(), copy.copy(echo)._loaded is None  # what a pickle keeps
        ({'model': 'tiny'}, True)
    """

    model: str
    #: The attributes a pickle keeps (the constructor parameters).
    _state: ClassVar[tuple[str, ...]] = ("model",)

    def _reset(self) -> None:
        """Forget the loaded model and everything derived from it."""
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()
        self._model_id: str | None = None

    @abstractmethod
    def _load(self) -> tuple[Any, Any]:
        """Load and return ``(tokenizer, model)``, setting what is derived from them first."""

    @property
    def model_id(self) -> str:
        """``name@sha256:<16 hex>`` of the local weights, else ``name@unverified``."""
        if self._model_id is None:
            self._model_id = weights_identity(self.model)
        return self._model_id

    def load(self) -> tuple[Any, Any]:
        """Load (once) and return ``(tokenizer, model)``."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._load()
        return self._loaded

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._state}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r})"
