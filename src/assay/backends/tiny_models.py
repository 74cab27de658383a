"""Tiny, randomly initialised but *real* transformers models, built offline for tests.

No model can be downloaded on the build machines, so the NLI, classifier and causal-LM backends
are tested for plumbing with models built here from the real transformers classes, saved to a
folder and loaded back by path exactly as a user's model would be. The weights are random
(seeded): the scores mean nothing, only the code paths are exercised.

Each builder writes once per process into a temporary folder (cached) unless a folder is given.
Requires torch, transformers and tokenizers (extra ``nli``).

Example:
    >>> path = tiny_nli_model()  # doctest: +SKIP
    >>> sorted(p.name for p in path.iterdir())  # doctest: +SKIP
    ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from assay.errors import require

#: Words of the tiny vocabulary (anything else becomes ``[UNK]``).
_WORDS_TEXT = (
    "the a an is are was were be not no yes and or but of to in on at for with by from as it "
    "this that these those he she they we you i his her their our my your account fee fees "
    "monthly month euros euro 12 5,000 3 1.5 % premier current card cash payment payments "
    "abroad withdrawal withdrawals cost costs close online any time free charge waived when "
    "balance stays above below each customer customers can cannot bank paid pays price high "
    "low cat cats dog dogs sat mat sky blue green red sun rain day night good bad nice hate "
    "love idiot stupid friend people women men old young . , ! ? : ; ' \""
)
VOCAB_WORDS = tuple(_WORDS_TEXT.split())
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "<s>", "</s>")
_LOCK = threading.Lock()
_BUILT: dict[str, Path] = {}

#: NLI label order of the tiny NLI models (the MNLI convention of many cross-encoders).
NLI_LABELS = {0: "contradiction", 1: "entailment", 2: "neutral"}


def _tokenizer(pair_template: bool) -> Any:
    """A word-level fast tokenizer (lower-cased, whitespace + punctuation pre-tokenised)."""
    require("tokenizers", extra="nli")
    require("transformers", extra="nli")
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordLevel
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate((*_SPECIAL, *VOCAB_WORDS))}
    tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()]
    )
    if pair_template:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]",
            pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
        )
        return PreTrainedTokenizerFast(
            tokenizer_object=tok,
            unk_token="[UNK]",
            pad_token="[PAD]",
            cls_token="[CLS]",
            sep_token="[SEP]",
            mask_token="[MASK]",
        )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", bos_token="<s>",
        eos_token="</s>",
    )


def _save(key: str, folder: str | Path | None, build: Any) -> Path:
    if folder is None:
        with _LOCK:
            cached = _BUILT.get(key)
            if cached is not None and cached.is_dir():
                return cached
            path = Path(tempfile.mkdtemp(prefix=f"assay-{key}-"))
            build(path)
            _BUILT[key] = path
            return path
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    build(path)
    return path


def _classifier(
    path: Path, arch: str, id2label: dict[int, str], seed: int, max_positions: int
) -> None:
    require("torch", extra="nli", package="torch==2.13.0")
    import torch
    import transformers

    torch.manual_seed(seed)
    tokenizer = _tokenizer(pair_template=True)
    common: dict[str, Any] = {
        "vocab_size": len(tokenizer),
        "hidden_size": 16,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "max_position_embeddings": max_positions,
        "id2label": id2label,
        "label2id": {v: k for k, v in id2label.items()},
        "pad_token_id": tokenizer.pad_token_id,
        "initializer_range": 0.4,  # large random weights, so that probabilities differ
    }
    model: Any
    if arch == "roberta":
        common["max_position_embeddings"] = max_positions + 2  # RoBERTa offsets positions by 2
        model = transformers.RobertaForSequenceClassification(transformers.RobertaConfig(**common))
    else:
        model = transformers.BertForSequenceClassification(transformers.BertConfig(**common))
    model.eval()
    model.save_pretrained(path)
    tokenizer.model_max_length = max_positions
    tokenizer.save_pretrained(path)


def tiny_nli_model(folder: str | Path | None = None, *, arch: str = "bert") -> Path:
    """A tiny random NLI cross-encoder (labels :data:`NLI_LABELS`), saved and returned as a path.

    Args:
        folder: where to save it; default a temporary folder built once per process.
        arch: ``"bert"`` (head ``classifier``) or ``"roberta"`` (head ``classifier.out_proj``).
    """
    return _save(
        f"nli-{arch}", folder, lambda p: _classifier(p, arch, NLI_LABELS, 0, 128)
    )


def tiny_consistency_model(folder: str | Path | None = None) -> Path:
    """A tiny random HHEM-like cross-encoder with a single output logit (sigmoid = consistency)."""
    return _save("hhem", folder, lambda p: _classifier(p, "bert", {0: "consistent"}, 1, 128))


def tiny_bias_model(folder: str | Path | None = None, *, max_positions: int = 512) -> Path:
    """A tiny random text classifier labelled like d4data/bias-detection-model."""
    return _save(
        f"bias-{max_positions}",
        folder,
        lambda p: _classifier(p, "bert", {0: "Non-biased", 1: "Biased"}, 2, max_positions),
    )


def tiny_causal_lm(folder: str | Path | None = None, *, n_positions: int = 64) -> Path:
    """A tiny random GPT-2 with a word-level tokenizer (BOS ``<s>``), saved and returned."""

    def build(path: Path) -> None:
        require("torch", extra="nli", package="torch==2.13.0")
        import torch
        import transformers

        torch.manual_seed(3)
        tokenizer = _tokenizer(pair_template=False)
        config = transformers.GPT2Config(
            vocab_size=len(tokenizer),
            n_positions=n_positions,
            n_embd=16,
            n_layer=1,
            n_head=2,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
            initializer_range=0.2,
        )
        model = transformers.GPT2LMHeadModel(config)
        model.eval()
        model.save_pretrained(path)
        tokenizer.model_max_length = n_positions
        tokenizer.save_pretrained(path)

    return _save(f"gpt2-{n_positions}", folder, build)


def summac_conv_weights(folder: str | Path | None = None, *, n_bins: int = 23) -> Path:
    """Random (seeded) SummaC-Conv weights as ``.npz`` — shapes only, no meaning."""

    def build(path: Path) -> None:
        import numpy as np

        rng = np.random.default_rng(4)
        arrays: dict[str, Any] = {
                "mlp.weight": rng.normal(size=(1, n_bins)),
                "mlp.bias": rng.normal(size=1),
                "layer_final.weight": rng.normal(size=(2, 3)),
                "layer_final.bias": rng.normal(size=2),
            }
        np.savez(path / "summac_conv.npz", **arrays)

    return _save(f"summac-{n_bins}", folder, build) / "summac_conv.npz"
