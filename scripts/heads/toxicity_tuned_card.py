"""The tuned toxicity head's model card, generated from what training measured."""

from __future__ import annotations

from typing import Any

from heads.cards import _card, _fmt
from heads.toxicity_data import TOXICITY_TARGETS


def _dev_table(metrics: dict[str, Any]) -> list[str]:
    heads = {"tuned head (this one)": metrics["dev"],
             "token head it started from (its model card)": metrics["dev_start_head"]}
    targets = [*TOXICITY_TARGETS, "toxicity_hate_vs_counter_speech"]
    sources = list(metrics["dev"]["toxicity_by_source"])
    rows = ["| model | " + " | ".join(targets) + " | "
            + " | ".join(f"toxicity, {s}" for s in sources) + " |",
            "|---|" + "---:|" * (len(targets) + len(sources))]
    for name, m in heads.items():
        by_source = m.get("toxicity_by_source", {})
        rows.append(f"| {name} | " + " | ".join(_fmt(m.get(t)) for t in targets) + " | "
                    + " | ".join(_fmt(by_source.get(s)) for s in sources) + " |")
    return rows


def toxicity_tuned_card(info: dict[str, Any], digest: str, licences: dict[str, str]) -> str:
    """The tuned toxicity head's MODEL_CARD.md."""
    metrics = info["metrics"]
    top = info["top_layer"]
    gaps = metrics["shipped_path_logit_gap"]
    history = ", ".join(f"{h.get('epoch', 0)}: {h['early_stop_auroc']:.4f}"
                        for h in info["history"])
    what = (
        "all-MiniLM-L6-v2 with its last transformer layer (layer 6, "
        f"{top['parameters']:,} parameters, stored as {top['dtype']}) fine-tuned together with "
        f"the token toxicity head's pooling and classifier (initialised from `{info['start']}`)"
        "; layers 1-5 and the embeddings stay frozen and are the run's one shared MiniLM pass: "
        "`assay.backends.embed.top_layer.TopLayerEmbedder` runs this layer on the hidden states "
        "entering layer 6 of that pass, and the base outputs of the same pass go to the "
        "shared embedding cache (design notes 0042, 0044). Same six categories and scoring as "
        "the other toxicity heads; the token head's spelling normaliser (its lexicon ships "
        f"inside `weights.npz`). AdamW (layer LR {info['lr_layer']:g}, head LR "
        f"{info['lr_head']:g}), batch {info['batch']}, {info['epochs']} epochs, layer dropout "
        f"{info['layer_dropout']:g}, seed {info['seed']}; best of the half-epoch checks kept "
        f"(early-stopping AUROC of `toxicity` by epoch: {history}). The default toxicity head "
        "(spec `\"head\"`, also `\"head-tuned\"`; design note 0045).")
    dev_rows = ", ".join(f"{s} {n:,}" for s, n in info["dev_rows"].items())
    contrast = info["rows"].get("stance_contrast", 0) + info["dev_rows"].get("stance_contrast", 0)
    data_notes = (
        f"The token head's rows, split and weights (`{info['start']}` model card), read from "
        "`../shared/data/training/` (never copied into the repository), and "
        f"{contrast:,} contrast rows written for assay (`stance_contrast`, "
        "`scripts/heads/toxicity_contrast.py`: statements about 32 groups, praise or contempt, "
        "affirmed or negated; harsh acts on things or on groups), split by the same hash; dev "
        f"split: {dev_rows}; {info['early_stop_rows']:,} early-stopping rows from the training "
        "side. No validation set of assay (Davidson, GPTFuzz, SummEdits, FRANK, presidio) was "
        "used for training. The contrast rows answer failures seen on assay's held-out "
        "HateCheck-style suite (denied praise, negated hate), no row repeats or nearly repeats "
        "one of its sentences, and every candidate was scored on it (design note 0054): its "
        "figures for this head are not a clean held-out estimate.")
    offsets = ", ".join(f"{t} {v:+.2f}" for t, v in metrics["bias_offsets"].items())
    rates = ", ".join(f"{t} {v:.3f}" for t, v in metrics["dev_false_positive_rate"].items())
    recall = ", ".join(f"{t} {v:.3f}" for t, v in metrics["dev_recall"].items())
    lines = [
        "## Metrics (dev split, held out of the fit)", "",
        "AUROC per target (each on the dev rows labelled for it), and of `toxicity` within each "
        "source (the labelled sources' dev rows, as the start head's card):", "",
        *_dev_table(metrics), "",
        *([f"On the contrast rows' dev side, `toxicity` AUROC "
           f"{metrics['dev_stance_contrast']:.3f} (siblings of training rows: an easy check)."
           , ""] if metrics.get("dev_stance_contrast") is not None else []),
        f"**Threshold.** Output biases shifted after the fit ({offsets}) so that at 0.5 each "
        f"flags a set share of the dev texts labelled not toxic ({rates}: `toxicity` the token "
        "head's share; `threat` a low one, so that a liability clause or an instruction to "
        "destroy a card does not read as a threat, design note 0045); recall at 0.5 on the dev "
        f"texts labelled with the target: {recall}. AUROC does not change.", "",
        "The shipped inference path (float16 layer weights and token matrices, the head's "
        "numpy pooling and classifier) and the torch model, on the logits of "
        f"{gaps['n']} dev texts: mean gap {gaps['mean']:.2g}, 99th percentile {gaps['p99']:.2g}"
        f", largest {gaps['max']:.2g}. Held-out HateCheck-style suite, design lists, Davidson "
        "and cost: `benchmarks/results/toxicity.md`."]
    limits = [
        "Only the last layer is trained: what layers 1-5 do not separate (who speaks, "
        "quotation, negation scope) is learnt from few examples. Negation is taught by assay's "
        "contrast rows, in their simple frames; counter-speech that quotes or reports hate is "
        "still flagged about half the time, and hate referred to by a pronoun in the next "
        "sentence is its weakest hateful functionality.",
        "It scores toxicity, not hate speech alone: abuse of a group that is not protected "
        "(\"Bankers are greedy parasites.\") or of one person is flagged.",
        "Threats against one person in plain words (\"Say that again and I will put you in "
        "the hospital.\") are often missed, and hostility addressed to \"you\" (an insult) "
        "often reads as `threat`: `threat` was fitted on Civil Comments posts whose raters "
        "marked a threat span, not on threatening sentences.",
        "Reclaimed slurs and in-group terms are scored like the slur: it cannot tell who "
        "speaks.",
        "Needs torch and the MiniLM model when a sentence is not in the embedding cache (the "
        "`embed` extra); adds one layer to the shared pass (see the cost in the results).",
        "English only; MiniLM truncates a sentence past 256 word pieces.",
    ]
    return _card("toxicity-tuned", what, digest, info, licences, data_notes, lines, limits)
