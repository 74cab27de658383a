"""Toxicity heads on the training dev split: tuned and token heads, the sentence recipe, their mean.

The token toxicity head (design note 0038) ships fitted on 85 % of the training texts; the other
15 % (:func:`heads.toxicity_token.dev_split`, by a hash of the text, with hard negatives made
from the dev texts' own hate) is its dev split. The shipped *sentence* head was fitted on all the
texts, so it is represented here, as in the token head's model card, by its recipe refitted on
the same training rows (:func:`heads.toxicity_token.sentence_baseline`). Their mean (design note
0040, ``classifier="head-ensemble"``) is measured per target as the mean of the two
probabilities (sigmoid of each logit; AUROC is rank-based, so each head's row equals its
logits'). The shipped token head's row reproduces its model card: a check that the split is the
one it was fitted without. The tuned head (design notes 0044, 0045; the default) was fitted on
the token head's training rows, so the same split is held out of it; it is scored through the
shipped path (its fine-tuned layer on MiniLM's pass). A second table gives each model's operating
point at 0.5, as the ``toxicity`` evaluator scores (``threat`` on its own and counted as toxic):
the share of the dev texts labelled not toxic that ``toxicity_score`` flags (all, and the
everyday MNLI sentences alone), and ``threat``'s recall and flag rate on texts labelled not toxic.

Reads ``../shared/data/training`` (never copied into the repository) and embeds it through
assay's cache (``--cache-dir``; token matrices only for the dev rows). Writes
``benchmarks/results/toxicity_dev.md``.

Run: ``python benchmarks/bench_toxicity_dev.py [--cache-dir DIR]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from results_file import publish

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
OUT = HERE / "results" / "toxicity_dev.md"
COLUMNS = (
    "toxicity",
    "severe_toxicity",
    "obscene",
    "threat",
    "insult",
    "identity_attack",
    "toxicity_hate_vs_counter_speech",
)


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function."""
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))


def row(name: str, metrics: dict[str, Any], sources: list[str]) -> str:
    """One Markdown table row of :func:`heads.toxicity_token.dev_metrics`' output."""

    def cell(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    values = [metrics[c] for c in COLUMNS] + [metrics["toxicity_by_source"][s] for s in sources]
    return f"| {name} | " + " | ".join(cell(v) for v in values) + " |"


def operating_row(name: str, logits: np.ndarray, y: np.ndarray, sources: np.ndarray) -> str:
    """One row of the operating-point table: flag rates at 0.5 of ``toxicity_score`` on the
    texts labelled not toxic (all; MNLI's), ``threat``'s recall and its not-toxic flag rate."""
    from heads.toxicity import DIRECT
    from heads.toxicity_data import TOXICITY_TARGETS

    from assay.backends.classify.head import head_scores

    scores = head_scores(TOXICITY_TARGETS, "subtypes", logits, direct=DIRECT)
    overall, threat = scores.overall_scores(), scores.column("threat")
    benign = y[:, 0] == 0
    threats = y[:, TOXICITY_TARGETS.index("threat")] == 1
    cells = [
        (overall[benign] >= 0.5).mean(),
        (overall[benign & (sources == "mnli")] >= 0.5).mean(),
        (threat[threats] >= 0.5).mean(),
        (threat[benign] >= 0.5).mean(),
    ]
    return f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |"


def main() -> int:
    from heads.common import TRAINING_DATA, embedder
    from heads.toxicity_data import toxicity_examples
    from heads.toxicity_token import (
        dev_metrics,
        dev_split,
        sentence_baseline,
        target_matrix,
    )

    from assay.backends.classify.head import HeadClassifier
    from assay.backends.heads.store import load_head
    from assay.backends.heads.token_pool import TokenPooler

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path("/tmp/assay-heads-cache"),
        help="embedding cache of the training texts (shared with the trainers)",
    )
    parser.add_argument("--data", type=Path, default=TRAINING_DATA, help="training data folder")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"training data not found at {args.data}; see shared/data/README", file=sys.stderr)
        return 1
    train_examples, dev_examples = dev_split(toxicity_examples(args.data, seed=0))
    everything = [*train_examples, *dev_examples]
    emb = embedder(args.cache_dir)
    texts = [e.text for e in everything]
    vectors = np.asarray(emb.encode(texts), dtype=np.float32)
    y = target_matrix(everything)
    training = np.arange(len(train_examples))
    dev = np.arange(len(train_examples), len(everything))
    sources = np.array([e.source for e in everything])[dev]
    dev_texts = [texts[i] for i in dev]

    recipe = sentence_baseline(
        SimpleNamespace(c=0.01, seed=0), SimpleNamespace(vectors=vectors), y, training, dev
    )
    head = load_head("toxicity-token")
    pooler = TokenPooler.from_arrays(head.extra)
    _, tokens = emb.encode_with_tokens(dev_texts)
    token = head.logits(pooler.features(vectors[dev], tokens))
    mean = (sigmoid(token) + sigmoid(recipe)) / 2
    tuned_head = HeadClassifier("toxicity-tuned")
    tuned_vectors, tuned_tokens = tuned_head.resolved_embedder().encode_with_tokens(dev_texts)
    tuned = tuned_head.logits_of(np.asarray(tuned_vectors, np.float32), tuned_tokens)

    rows = {
        "tuned head (shipped, the default)": dev_metrics(tuned, y[dev], sources),
        "token head (shipped)": dev_metrics(token, y[dev], sources),
        "sentence head's recipe, same training rows": dev_metrics(recipe, y[dev], sources),
        "mean of the two (`head-ensemble`)": dev_metrics(mean, y[dev], sources),
    }
    reported = list(rows["token head (shipped)"]["toxicity_by_source"])
    lines = [
        "# Toxicity heads on the training dev split",
        "",
        "Written by `benchmarks/bench_toxicity_dev.py`: the token head's dev split (15 % of the "
        f"training texts by a hash of the text, {len(dev):,} rows with their own hard "
        f"negatives; {len(training):,} training rows), held out of the token and tuned heads' "
        "fits and of the sentence recipe refitted here. AUROC per target (dev rows labelled "
        "for it), of `toxicity` on the identity attacks against the counter-speech and negated "
        "hate made from other dev sentences, and of `toxicity` within each source.",
        "",
        "| model | "
        + " | ".join(COLUMNS)
        + " | "
        + " | ".join(f"toxicity, {s}" for s in reported)
        + " |",
        "|---|" + "---:|" * (len(COLUMNS) + len(reported)),
        *(row(name, metrics, reported) for name, metrics in rows.items()),
        "",
        "The mean is taken per target over the two heads' probabilities, as each head's row "
        "measures its own targets; the `head-ensemble` backend averages the two heads' "
        "*category scores* (each subtype times P(toxic), `threat` on its own).",
        "",
        "## Operating point at 0.5",
        "",
        "As the `toxicity` evaluator scores a sentence (`toxicity_score` is the larger of "
        "P(toxic) and P(threat)). The sentence recipe's biases are its own fit's, as the "
        "shipped sentence head's are (that head was fitted on these dev rows too, so it is not "
        "scored here).",
        "",
        "| model | not toxic, flagged | MNLI sentences, flagged | threat recall | not toxic, "
        "read as threat |",
        "|---|---:|---:|---:|---:|",
        *(
            operating_row(name, logits, y[dev], sources)
            for name, logits in (
                ("tuned head (shipped, the default)", tuned),
                ("token head (shipped)", token),
                ("sentence head's recipe, same training rows", recipe),
            )
        ),
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
