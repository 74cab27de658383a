"""The NLI head: entailment / neutral / contradiction from MiniLM sentence-pair features.

Data: the four NLI folders of ``../shared/data/training/nli`` (MNLI dev-matched, TaxiNLI's MNLI
selection, SNLI dev+test, counterfactually-augmented SNLI). Validation: 10 % of the *premises*
(grouped across all four files, as the data README asks, so no premise is on both sides),
chosen by a hash of the normalised premise. Features: :mod:`assay.backends.heads.nli_features`.
Model: one hidden ReLU layer and a linear output (so the HCAT distance is exact).
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.heads.nli_features import (
    FEATURE_SET,
    N_FEATURES,
    SCALARS,
    lexical_fingerprint,
    pair_features,
)
from assay.backends.heads.store import save_head
from assay.text.rules_probe import FINGERPRINT
from heads.common import (
    EMBEDDER,
    SHIPPED,
    embedder,
    fit_dense,
    logger,
    read_jsonl,
    stable_fraction,
    subsample,
)

LABELS = ("entailment", "neutral", "contradiction")
SOURCES = {
    "mnli_dev_matched": "mnli_dev_matched/mnli_dev_matched.jsonl",
    "mnli_taxinli": "mnli_taxinli/mnli_taxinli.jsonl",
    "snli_dev_test": "snli_dev_test/snli_dev_test.jsonl",
    "snli_counterfactual": "snli_counterfactual/snli_cad.jsonl",
}
LICENCES = {
    "mnli_dev_matched": "MNLI text: OANC (free use), fiction CC BY 3.0 / CC BY-SA 3.0",
    "mnli_taxinli": "MNLI text as above; TaxiNLI selection C-UDA 1.0 (trained models unrestricted)",
    "snli_dev_test": "SNLI: CC BY-SA 4.0",
    "snli_counterfactual": "Apache-2.0 (repo); SNLI-derived text CC BY-SA 4.0",
}
VALIDATION_SHARE = 0.1
HIDDEN = (256,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hidden", type=int, nargs="*", default=list(HIDDEN),
                        help="hidden layer sizes (none = multinomial logistic regression)")


def premise_key(premise: str) -> str:
    """The premise, lower-cased with punctuation and spacing removed (the grouping key)."""
    return re.sub(r"[\W_]+", " ", premise.lower()).strip()


def load(data: Path, limit: int | None, seed: int) -> list[dict[str, Any]]:
    """Every labelled pair (a seeded subsample of ``limit`` per file), tagged with its source."""
    rows = []
    for source, relative in SOURCES.items():
        found = [
            {"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"],
             "source": source}
            for r in read_jsonl(data / "nli" / relative)
            if r.get("label") in LABELS and r.get("premise") and r.get("hypothesis")
        ]
        rows.extend(subsample(found, limit, seed))
    return rows


def split(rows: list[dict[str, Any]]) -> np.ndarray:
    """True for validation rows: 10 % of the premises, grouped across files."""
    return np.array([stable_fraction(premise_key(r["premise"])) < VALIDATION_SHARE for r in rows])


def validation_report(logits: np.ndarray, y: np.ndarray, sources: Sequence[str]
                      ) -> dict[str, Any]:
    """:func:`evaluate` on all rows (``validation``) and per source file
    (``validation_by_source``)."""
    found = np.asarray(sources)
    return {"validation": evaluate(logits, y),
            "validation_by_source": {s: evaluate(logits[found == s], y[found == s])
                                     for s in sorted(set(sources))}}


def evaluate(head_logits: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Accuracy, macro F1, per-class recall and entailment-vs-rest AUROC."""
    from sklearn.metrics import f1_score, roc_auc_score

    predicted = head_logits.argmax(axis=1)
    margin = head_logits[:, 0] - head_logits[:, 1:].max(axis=1)
    both = 0 < int((y == 0).sum()) < len(y)
    return {
        "accuracy": round(float((predicted == y).mean()), 4),
        "macro_f1": round(float(f1_score(y, predicted, average="macro", zero_division=0)), 4),
        "recall": {label: round(float((predicted[y == i] == i).mean()), 4) if (y == i).any()
                   else None for i, label in enumerate(LABELS)},
        "entailment_auroc": round(float(roc_auc_score(y == 0, margin)), 4) if both else None,
        "n": len(y),
    }


def train(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    rows = load(args.data, args.limit, args.seed)
    held = split(rows)
    logger.info("NLI pairs: %d (%d validation)", len(rows), int(held.sum()))
    emb = embedder(args.cache_dir)
    x = pair_features(emb, [r["premise"] for r in rows], [r["hypothesis"] for r in rows])
    y = np.array([LABELS.index(r["label"]) for r in rows])
    embedded = time.perf_counter() - started
    layers, mean, scale, _ = fit_dense(x[~held], y[~held], hidden=args.hidden, seed=args.seed)
    from assay.backends.heads.store import Head

    head = Head("nli", LABELS, FEATURE_SET, layers, mean, scale)
    metrics = {"validation": evaluate(head.logits(x[held]), y[held])}
    sources = np.array([r["source"] for r in rows])
    metrics["validation_by_source"] = {
        s: evaluate(head.logits(x[held & (sources == s)]), y[held & (sources == s)])
        for s in SOURCES if (held & (sources == s)).any()
    }
    info = {
        "seed": args.seed,
        "limit_per_file": args.limit,
        "hidden": list(args.hidden),
        "n_features": N_FEATURES,
        "scalar_features": list(SCALARS),
        FINGERPRINT: lexical_fingerprint(),
        "embedder": EMBEDDER,
        "rows": {s: int((sources == s).sum()) for s in SOURCES},
        "train_rows": int((~held).sum()),
        "validation_rows": int(held.sum()),
        "metrics": metrics,
        "seconds": {"embedding_and_features": round(embedded, 1),
                    "total": round(time.perf_counter() - started, 1)},
    }
    out = args.out or SHIPPED / "nli"
    digest = save_head(out, name="nli", labels=LABELS, features=FEATURE_SET, layers=layers,
                       mean=mean, scale=scale, info=info)
    (out / "MODEL_CARD.md").write_text(model_card(info, digest), encoding="utf-8")
    logger.info("wrote %s (sha256 %s): %s", out, digest[:16], metrics["validation"])
    return 0


def model_card(info: dict[str, Any], digest: str) -> str:
    """The model card, generated from what training measured."""
    v = info["metrics"]["validation"]
    lines = [
        "# assay NLI head (`nli`)",
        "",
        "Generated by `python scripts/train_heads.py --head nli`; do not edit by hand.",
        "",
        "**What it is.** A small classifier over frozen all-MiniLM-L6-v2 sentence vectors that "
        "labels a (premise, hypothesis) pair entailment / neutral / contradiction. Features: the "
        "premise sentence closest to the hypothesis `u`, the hypothesis `v`, `[u, v, |u−v|, u⊙v]`"
        f" plus {len(info['scalar_features'])} scalars "
        f"({', '.join(info['scalar_features'])})"
        f"; {info['n_features']} inputs, hidden layers {info['hidden'] or 'none'}, linear output "
        "(so the HCAT distance z/‖w‖ is exact). The default NLI backend of assay when no "
        "cross-encoder is configured (`nli=\"head\"`).",
        "",
        f"**Weights.** `weights.npz` sha256 `{digest}` (checked before every load).",
        "",
        "## Data",
        "",
        "| source | pairs used | licence |",
        "|---|---:|---|",
        *(f"| {s} | {n:,} | {LICENCES[s]} |" for s, n in info["rows"].items()),
        "",
        f"Train {info['train_rows']:,} pairs, validation {info['validation_rows']:,} pairs: 10 % "
        "of the premises, grouped across the four files (no premise on both sides). Per-file "
        f"limit: {info['limit_per_file'] or 'none (all rows)'}; seed {info['seed']}. The data is "
        "read from `../shared/data/training/nli` and is not in the repository. No validation set "
        "of assay (SummEdits, FRANK, ...) was used.",
        "",
        "## Metrics (grouped validation split, in-distribution)",
        "",
        f"Accuracy {v['accuracy']:.3f}, macro F1 {v['macro_f1']:.3f}, entailment-vs-rest AUROC "
        f"{v['entailment_auroc']} on {v['n']:,} pairs. Recall: "
        + ", ".join(f"{k} {r}" for k, r in v["recall"].items()) + ".",
        "",
        "| source | n | accuracy | macro F1 |",
        "|---|---:|---:|---:|",
        *(f"| {s} | {m['n']:,} | {m['accuracy']:.3f} | {m['macro_f1']:.3f} |"
          for s, m in info["metrics"]["validation_by_source"].items()),
        "",
        "Out-of-domain validity (SummEdits, leave-one-domain-out) is measured by "
        "`benchmarks/bench_heads_validity.py`; see `benchmarks/results/heads_validity.md`.",
        "",
        "## Limits",
        "",
        "- Far below a fine-tuned cross-encoder (MNLI accuracy ~0.9): a sentence vector "
        "compresses word order and scope, so the head misses most contradictions that keep the "
        "wording (swapped roles, antonyms, changed quantifiers) unless a number, name or negation "
        "changes; it leans on lexical overlap for entailment.",
        "- Trained on single-sentence or short-paragraph premises (SNLI captions, MNLI genres); a "
        "long passage is represented by its sentence closest to the claim, so support spread over "
        "several sentences is under-rated.",
        "- English only. MiniLM truncates a sentence past 256 word pieces.",
        "",
    ]
    return "\n".join(lines)
