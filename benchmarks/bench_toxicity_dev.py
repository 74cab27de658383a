"""Toxicity heads on the training dev split: the token head, the sentence head's recipe, their mean.

The token toxicity head (design note 0038) ships fitted on 85 % of the training texts; the other
15 % (:func:`heads.toxicity_token.dev_split`, by a hash of the text, with hard negatives made
from the dev texts' own hate) is its dev split. The shipped *sentence* head was fitted on all the
texts, so it is represented here, as in the token head's model card, by its recipe refitted on
the same training rows (:func:`heads.toxicity_token.sentence_baseline`). Their mean (design note
0040, ``classifier="head-ensemble"``) is measured per target as the mean of the two
probabilities (sigmoid of each logit; AUROC is rank-based, so each head's row equals its
logits'). The shipped token head's row reproduces its model card: a check that the split is the
one it was fitted without.

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
COLUMNS = ("toxicity", "severe_toxicity", "obscene", "threat", "insult", "identity_attack",
           "toxicity_hate_vs_counter_speech")


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function."""
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)))


def row(name: str, metrics: dict[str, Any], sources: list[str]) -> str:
    """One Markdown table row of :func:`heads.toxicity_token.dev_metrics`' output."""
    def cell(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    values = [metrics[c] for c in COLUMNS] + [metrics["toxicity_by_source"][s] for s in sources]
    return f"| {name} | " + " | ".join(cell(v) for v in values) + " |"


def main() -> int:
    from heads.common import TRAINING_DATA, embedder
    from heads.toxicity_data import toxicity_examples
    from heads.toxicity_token import (
        dev_metrics,
        dev_split,
        sentence_baseline,
        target_matrix,
    )

    from assay.backends.heads.store import load_head
    from assay.backends.heads.token_pool import TokenPooler

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/assay-heads-cache"),
                        help="embedding cache of the training texts (shared with the trainers)")
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

    recipe = sentence_baseline(SimpleNamespace(c=0.01, seed=0), SimpleNamespace(vectors=vectors),
                               y, training, dev)
    head = load_head("toxicity-token")
    pooler = TokenPooler.from_arrays(head.extra)
    _, tokens = emb.encode_with_tokens([texts[i] for i in dev])
    token = head.logits(pooler.features(vectors[dev], tokens))
    mean = (sigmoid(token) + sigmoid(recipe)) / 2

    rows = {"token head (shipped)": dev_metrics(token, y[dev], sources),
            "sentence head's recipe, same training rows": dev_metrics(recipe, y[dev], sources),
            "mean of the two (`head-ensemble`)": dev_metrics(mean, y[dev], sources)}
    reported = list(rows["token head (shipped)"]["toxicity_by_source"])
    lines = [
        "# Toxicity heads on the training dev split",
        "",
        "Written by `benchmarks/bench_toxicity_dev.py`: the token head's dev split (15 % of the "
        f"training texts by a hash of the text, {len(dev):,} rows with their own hard "
        f"negatives; {len(training):,} training rows), held out of the token head's fit and "
        "of the sentence recipe refitted here. AUROC per target (dev rows labelled for it), "
        "of `toxicity` on the identity attacks against the counter-speech and negated hate "
        "made from other dev sentences, and of `toxicity` within each source.",
        "",
        "| model | " + " | ".join(COLUMNS) + " | " + " | ".join(
            f"toxicity, {s}" for s in reported) + " |",
        "|---|" + "---:|" * (len(COLUMNS) + len(reported)),
        *(row(name, metrics, reported) for name, metrics in rows.items()),
        "",
        "The mean is taken per target over the two heads' probabilities, as each head's row "
        "measures its own targets; the `head-ensemble` backend averages the two heads' "
        "*category scores* (each subtype times P(toxic), `threat` on its own).",
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
