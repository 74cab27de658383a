"""The token NLI head's model card, generated from what training measured."""

from __future__ import annotations

from typing import Any

from heads.cards import _card
from heads.nli import LICENCES


def validation_lines(info: dict[str, Any]) -> list[str]:
    """The metrics section of a token NLI head's card (frozen or tuned encoder)."""
    metrics = info["metrics"]
    v = metrics["validation"]
    lines = [
        "## Metrics (grouped validation split, in-distribution)",
        "",
        f"Accuracy {v['accuracy']:.3f}, macro F1 {v['macro_f1']:.3f}, entailment-vs-rest AUROC "
        f"{v['entailment_auroc']} on {v['n']:,} NLI pairs of the validation premises (the same "
        "split as the sentence head `nli`). Recall: "
        + ", ".join(f"{k} {r}" for k, r in v["recall"].items()) + ".",
        "",
        "| source | n | accuracy | macro F1 | entailment AUROC |",
        "|---|---:|---:|---:|---:|",
        *(f"| {s} | {m['n']:,} | {m['accuracy']:.3f} | {m['macro_f1']:.3f} | "
          f"{m['entailment_auroc']} |" for s, m in metrics["validation_by_source"].items()),
    ]
    edits = metrics.get("validation_edits")
    if edits:
        kinds = ", ".join(f"{k.removeprefix('edit_')} {edits[k]:.3f}" for k in edits
                          if k.startswith("edit_"))
        lines += ["", f"Detail edits of the validation premises' entailed hypotheses "
                      f"({edits['n']:,}) against those hypotheses, AUROC of the entailment "
                      f"margin: {edits['all']:.3f} ({kinds}). Synthetic edits of the same kinds "
                      "as in training, on unseen premises: an upper bound for real edits."]
    gap = metrics.get("shipped_path_logit_gap")
    if gap is None:
        lines += ["", f"The numpy forward pass that ships and the torch model it was trained as "
                      f"agree to {metrics['numpy_torch_max_logit_gap']:.1e} on every validation "
                      "logit. Out-of-domain validity (SummEdits, every domain unseen) is "
                      "measured by `benchmarks/bench_heads_validity.py`; see "
                      "`benchmarks/results/heads_validity.md`."]
    else:
        lines += ["", f"The inference path (the derived embedder's float16 layer and token "
                      f"matrices) and the torch model it was trained as differ by "
                      f"{gap['mean']:.1e} per validation pair on average (99th percentile "
                      f"{gap['p99']:.1e}); the figures above are the inference path's. "
                      "Out-of-domain validity (SummEdits, every domain unseen): "
                      "`scripts/experiments/summedits_signals.py --nli <this folder>`, "
                      "`benchmarks/results/summedits_signals_experiment.md`."]
    return lines


def model_card(info: dict[str, Any], digest: str) -> str:
    """The token NLI head's MODEL_CARD.md."""
    what = (
        "Decomposable attention (Parikh et al. 2016, hypothesis side) over frozen "
        "all-MiniLM-L6-v2 *token* embeddings: each hypothesis token is soft-aligned to the "
        "premise tokens, compared with its match, and the comparisons are pooled (mean, max), "
        "with the minimum and mean best token cosine and the sentence head's "
        f"{len(info['scalar_features'])} scalars ({', '.join(info['scalar_features'])}); "
        f"projection {info['project']}, compare {info['compare']}, {info['n_features']} "
        f"pooled inputs, hidden layer {info['hidden']}, linear output (so the HCAT distance "
        "z/‖w‖ is exact). Reads the token matrices of the same MiniLM pass as the sentence "
        "vectors (no second encoder pass). NLI spec `\"head-token\"`."
    )
    edit_rows = ", ".join(f"{k.removeprefix('edit_')} {n:,}" for k, n in info["edit_rows"].items())
    share = info.get("train_share", 1.0)
    data_notes = (
        (f"**Only {share:.0%} of the training premises were used** (`--train-share {share}`, "
         "chosen by a hash of the premise, all their pairs and edits; the validation premises "
         "are always kept): a head trained on every premise is better on held-out NLI pairs "
         "and worse on SummEdits' unseen domains (design notes 0033 and 0056). "
         if share < 1.0 else "")
        + f"Train {info['train_rows']:,} pairs (early stopping on {info['early_stop_rows']:,} "
        f"more, 5 % of the training premises), validation {info['validation_rows']:,} NLI "
        "pairs: 10 % of the premises, grouped across the four files (no premise on both "
        f"sides). Synthetic detail edits of the training premises' entailed hypotheses: "
        f"{edit_rows or 'none'} (number, name, negation and role edits labelled contradiction, "
        "a word replaced by another of the premise neutral; `scripts/heads/edits.py`). Seed "
        f"{info['seed']}; epochs {len(info['history'])} of at most {info.get('max_epochs', '?')} "
        f"(best kept), {info.get('threads', '?')} torch thread(s). The data is read from "
        "`../shared/data/training/nli` and is not in the repository. No validation set of "
        "assay (SummEdits, FRANK, ...) was used."
    )
    limits = [
        "Far below a fine-tuned cross-encoder (MNLI accuracy ~0.9): MiniLM is frozen and "
        "was trained for sentence similarity, not inference; the head sees which words of the "
        "claim have no counterpart in the premise, much less word order or scope.",
        "A detail edit that uses a word the premise also uses elsewhere (a name or number "
        "moved to the wrong place) aligns well token by token and is often missed.",
        "Trained on short premises (SNLI captions, MNLI genres); long passages are the "
        "concatenation of their sentences' tokens, each sentence encoded on its own.",
        "Hand-written pairs it gets wrong (`tests/backends/test_nli_token_head.py`): with two "
        "times in the premise ('opens at 9 am and closes at 5 pm'), a claim about one of them "
        "('opens at 9 am') can read as a contradiction; 'approved' → 'rejected' (no WordNet "
        "antonym pair) reads as entailment about as often as not.",
        "English only. MiniLM truncates a sentence past 256 word pieces.",
    ]
    return _card("nli-token", what, digest, info, LICENCES, data_notes, validation_lines(info),
                 limits)
