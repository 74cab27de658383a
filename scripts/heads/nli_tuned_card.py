"""The tuned NLI head's model card, generated from what training measured."""

from __future__ import annotations

from typing import Any

from heads.cards import _card
from heads.nli_token_card import validation_lines


def model_card(info: dict[str, Any], digest: str, licences: dict[str, str]) -> str:
    """The tuned NLI head's MODEL_CARD.md."""
    layer = info["top_layer"]
    start = info["start_metrics"]["validation"]
    what = (
        "The token NLI head (`nli-token`: decomposable attention over MiniLM token vectors, "
        "hypothesis side, with the sentence scalars) trained together with its own copy of "
        f"all-MiniLM-L6-v2's last layer (layer {layer['layer']}, {layer['parameters']:,} "
        f"parameters, stored as {layer['dtype']} in this head's `x_top_*` arrays). Layers 1-5 "
        "stay frozen and shared: passed as `nli=\"<this folder>\"`, the head reads the "
        "embedder `\"minilm-top:<this folder>\"`, which runs this layer on the states the "
        "shared MiniLM pass already computes (design note 0044), so it needs no second pass. "
        "Every encoder output the head reads comes from the tuned layer (token vectors, and "
        "the sentence vectors behind `cos_best`/`cos_mean`)."
        f" Initialised from `{info['start']}`; AdamW, layer LR {info['lr_layer']}, head LR "
        f"{info['lr_head']}, {info['epochs']} epochs, batch {info['batch']}, layer dropout "
        f"{info['layer_dropout']}, seed {info['seed']}; the state with the best early-stopping "
        "accuracy (checked every half epoch and before the first step) is kept. Not shipped "
        "with assay (design note 0046)."
    )
    edit_rows = ", ".join(f"{k.removeprefix('edit_')} {n:,}" for k, n in info["edit_rows"].items())
    data_notes = (
        f"Exactly the rows of `{info['start']}` ({info['train_share']:.0%} of the training "
        f"premises, chosen by a hash): train {info['train_rows']:,} pairs, early stopping "
        f"{info['early_stop_rows']:,}, validation {info['validation_rows']:,} NLI pairs of the "
        f"grouped validation premises; detail edits {edit_rows}. Start head on the same "
        f"validation pairs: accuracy {start['accuracy']:.3f}, entailment AUROC "
        f"{start['entailment_auroc']}. The data is read from `../shared/data/training/nli` and "
        "is not in the repository. No validation set of assay (SummEdits, FRANK, ...) was used."
    )
    limits = [
        "Far below a fine-tuned cross-encoder: one layer of a similarity encoder is tuned; "
        "each premise sentence is still encoded on its own, so a token's context stops at its "
        "sentence.",
        "Adds one transformer layer to the shared pass for every text it reads (the tuned "
        "toxicity head's layer costs about 15 % of the pass; design note 0045).",
        "English only. MiniLM truncates a sentence past 256 word pieces.",
    ]
    return _card("nli-tuned", what, digest, info, licences, data_notes,
                 validation_lines(info), limits)
