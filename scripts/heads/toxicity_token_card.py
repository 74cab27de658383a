"""The token toxicity head's model card, generated from what training measured."""

from __future__ import annotations

from typing import Any

from heads.cards import _card, _fmt
from heads.toxicity_data import TOXICITY_TARGETS


def _dev_table(metrics: dict[str, Any]) -> list[str]:
    heads = {"token head (this one)": metrics["dev"],
             "sentence head's recipe, same training rows": metrics["dev_sentence_head_recipe"]}
    first = next(iter(heads.values()))
    targets = [*TOXICITY_TARGETS, "toxicity_hate_vs_counter_speech"]
    sources = list(first["toxicity_by_source"])
    rows = ["| model | " + " | ".join(targets) + " | "
            + " | ".join(f"toxicity, {s}" for s in sources) + " |",
            "|---|" + "---:|" * (len(targets) + len(sources))]
    for name, m in heads.items():
        rows.append(f"| {name} | " + " | ".join(_fmt(m[t]) for t in targets) + " | "
                    + " | ".join(_fmt(m["toxicity_by_source"][s]) for s in sources) + " |")
    return rows


def toxicity_token_card(info: dict[str, Any], digest: str, licences: dict[str, str]) -> str:
    """The token toxicity head's MODEL_CARD.md."""
    metrics = info["metrics"]
    lexicon = info["data"]["deobfuscate"]
    what = (
        "Attention pooling over the frozen all-MiniLM-L6-v2 *token* vectors of a sentence "
        f"(`assay.backends.heads.token_pool`): each token projected to {info['project']} ReLU "
        f"units, {info['queries']} learnt attention queries each pooling the tokens, the "
        "max of each unit over the tokens, and the sentence vector; a hidden layer of "
        f"{info['hidden'][0]} and a linear output of the six categories of the sentence head "
        "`toxicity` (same targets, same scoring: `toxicity` with the data's prior, `threat` "
        "against every text and scored on its own, the other subtypes on toxic texts "
        "scored P(toxic) × P(subtype | toxic)). Trained end to end (torch, seed "
        f"{info['seed']}, Adam, masked binary cross-entropy per target, ToxiGen rows weighted "
        f"{info['toxigen_weight']:g}×; epochs {len(info['history'])} of at most "
        f"{info['max_epochs']}, best kept on 5 % of the training rows). Reads the token "
        "matrices of the same MiniLM pass as the sentence vector (no second encoder pass), "
        "after the same spelling-variant normaliser as the sentence head, whose lexicon ships "
        f"inside `weights.npz` ({len(lexicon['salient']):,} salient words, "
        f"{len(lexicon['words']):,} extra words). Toxicity spec `\"head-token\"`.")
    dev_rows = ", ".join(f"{s} {n:,}" for s, n in info["dev_rows"].items())
    data_notes = (
        "The sentence head's data and labels (see the `toxicity` model card), read from "
        "`../shared/data/training/` (never copied into the repository). **Dev split**: 15 % of "
        "the labelled texts by a hash of the text, held out of the fit, with the counter-speech "
        f"hard negatives made from its own hateful sentences only ({dev_rows}); the table "
        "above counts the training rows. No validation set of assay (Davidson, GPTFuzz, "
        "SummEdits, FRANK, presidio) and no sentence of assay's functional suites "
        "(`benchmarks/toxicity_functional.py`, `benchmarks/toxicity_heldout.py`) was used.")
    dev = metrics["dev"]
    lines = [
        "## Metrics (dev split, held out of the fit)", "",
        "AUROC per target (each on the dev rows labelled for it), and of `toxicity` within each "
        "source (both classes):", "", *_dev_table(metrics), "",
        "`toxicity` on the dev identity attacks against the counter-speech and negated hate "
        f"made from other dev sentences: {_fmt(dev['toxicity_hate_vs_counter_speech'])} "
        "(sentence head's recipe "
        f"{_fmt(metrics['dev_sentence_head_recipe']['toxicity_hate_vs_counter_speech'])}).", "",
        "The shipped numpy forward pass and the torch model agree within "
        f"{max(metrics['numpy_torch_max_logit_gap'], 1e-6):.0e} on every dev logit. Davidson "
        "and the "
        "functional breakdowns: `benchmarks/results/toxicity.md`."]
    limits = [
        "MiniLM is frozen and was trained for sentence similarity: its token vectors carry "
        "some context (a negation, who is addressed), and the pooling learns which tokens to "
        "read, but scope and stance are learnt only from the training data's few examples of "
        "them (the counter-speech frames are assay's own and repetitive).",
        "Threats are the weakest category (its positives are ~1,100 news comments); "
        "reclaimed slurs and in-group terms are scored like the slur: it cannot tell who "
        "speaks.",
        "Spelling variants are undone only towards the normaliser's lexicon (see the "
        "`toxicity` card).",
        "English only; MiniLM truncates a sentence past 256 word pieces.",
    ]
    return _card("toxicity-token", what, digest, info, licences, data_notes, lines, limits)
