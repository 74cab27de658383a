"""Experiment (issue 19): does one *joint* top layer over premise and hypothesis lift SummEdits?

Question: every NLI head assay ships reads each sentence alone (MiniLM's six layers, or five
frozen plus one tuned, per sentence) and compares the vectors afterwards; design note 0046 found
that SummEdits stays under 0.70 with such signals and named a cross-encoder (premise and
hypothesis in one input) as what the detectors that pass 0.70 use — at 0.28 of the shared
pass's speed. A middle way (DeFormer, Cao et al. 2020: lower layers per text, upper layers
joint) keeps layers 1-5 on the shared pass and runs only layer 6 over the *concatenated* layer-5
states of the hypothesis and its closest premise sentences. Is that enough?

What it does:

1. Trains a copy of MiniLM's layer 6 over ``[premise sentences' layer-5 states ; hypothesis's
   layer-5 states + a learned segment vector]`` with a small classifier on the pooled premise and
   hypothesis outputs (``[u, v, |u-v|, u*v]``), on the NLI training pairs and detail edits of
   ``scripts/heads/nli_token.py`` (``--share`` of the training premises; the same grouped
   validation premises), early stopping on held-out premises.
2. Scores the held-out NLI pairs (accuracy, entailment AUROC; the shipped ``nli-token`` head:
   0.648 / 0.870).
3. Scores SummEdits (validation data; nothing is fitted on it): per summary sentence, the
   ``--top-k`` document sentences closest to it (MiniLM cosine) in document order as the
   premise; the summary's score is the minimum over its sentences of P(entailment) and of
   P(entailment) - P(contradiction). Pooled and per-domain AUROC, next to the shipped
   ``nli_groundedness`` head signal computed the same way.
4. Times the joint layer per summary sentence against the MiniLM pass over the same texts.

Writes ``benchmarks/results/nli_cross_layer_experiment.md`` (``--out``).

Run: ``python scripts/experiments/nli_cross_layer.py [--share 1.0 --epochs 2 --top-k 3]``
"""

from __future__ import annotations

import argparse
import logging
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "scripts" / "experiments"))

from heads.common import logger, stable_fraction  # noqa: E402
from heads.nli import LABELS, premise_key, split  # noqa: E402
from heads.nli_token import EARLY_STOP_SHARE, training_pairs  # noqa: E402
from heads.nli_tuned import fit, logits_of  # noqa: E402
from heads.top_layer import (  # noqa: E402
    DIM,
    HEADS,
    Frozen,
    add_fine_tune_arguments,
    cached_states,
)

from assay.backends.heads.nli_features import premise_sentences  # noqa: E402
from assay.calibrate.separation import auroc  # noqa: E402
from bench_groundedness_validity import DATA, load  # noqa: E402
from results_file import publish  # noqa: E402

OUT = REPO / "benchmarks" / "results" / "nli_cross_layer_experiment.md"
#: The shipped NLI heads compared on SummEdits: spec -> table label.
SHIPPED_HEADS = {"head": "sentence head `nli` (the default)",
                 "head-token": "token head `nli-token`"}
#: Premise sentences read per training pair (MNLI/SNLI premises rarely have more).
TRAIN_PREMISE_SENTENCES = 4


class Pairs:
    """Each pair as indices into distinct sentences, and its label (-1 when unlabelled)."""

    def __init__(self, premises: list[list[str]], hypotheses: list[str],
                 labels: list[int]) -> None:
        texts: dict[str, None] = {}
        for sentences, hypothesis in zip(premises, hypotheses, strict=True):
            texts.update(dict.fromkeys(sentences))
            texts[hypothesis] = None
        self.texts = list(texts)
        index = {t: i for i, t in enumerate(self.texts)}
        self.premise = [np.array([index[s] for s in p]) for p in premises]
        self.hypothesis = np.array([index[h] for h in hypotheses])
        self.y = np.array(labels)


def build(frozen: Frozen, dropout: float, hidden: int = 256) -> Any:
    """The joint layer (a copy of MiniLM's layer 6) and its classifier."""
    import torch
    from torch import nn

    from assay.backends.embed.top_layer import top_layer_class

    class Head(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.segment = nn.Parameter(torch.zeros(2, DIM))
            self.mlp = nn.Sequential(nn.Linear(4 * DIM, hidden), nn.GELU(), nn.Dropout(0.1),
                                     nn.Linear(hidden, len(LABELS)))

    class Joint(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = top_layer_class().from_bert(frozen.layer6, HEADS, dropout)
            self.head = Head()

        def forward(self, pairs: Pairs, rows: np.ndarray, states: np.ndarray,
                    offsets: np.ndarray) -> Any:
            lengths_p = [int(sum(offsets[t + 1] - offsets[t] for t in pairs.premise[r]))
                         for r in rows]
            lengths_h = [int(offsets[pairs.hypothesis[r] + 1] - offsets[pairs.hypothesis[r]])
                         for r in rows]
            width = max(p + h for p, h in zip(lengths_p, lengths_h, strict=True))
            x = np.zeros((len(rows), width, DIM), dtype=np.float32)
            seg = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=bool)
            for k, r in enumerate(rows):
                parts = [states[offsets[t] : offsets[t + 1]] for t in pairs.premise[r]]
                h = pairs.hypothesis[r]
                parts.append(states[offsets[h] : offsets[h + 1]])
                joined = np.concatenate(parts)
                x[k, : len(joined)] = joined
                seg[k, lengths_p[k] : len(joined)] = 1
                mask[k, : len(joined)] = True
            seg_t = torch.from_numpy(seg)
            mask_t = torch.from_numpy(mask)
            h_in = torch.from_numpy(x) + self.head.segment[seg_t] * mask_t[..., None]
            out = self.layer(h_in, mask_t)
            is_p = (mask_t & (seg_t == 0))[..., None].float()
            is_h = (mask_t & (seg_t == 1))[..., None].float()
            u = (out * is_p).sum(1) / is_p.sum(1).clamp(min=1)
            v = (out * is_h).sum(1) / is_h.sum(1).clamp(min=1)
            return self.head.mlp(torch.cat([u, v, (u - v).abs(), u * v], dim=-1))

    return Joint()


def nli_pairs(args: argparse.Namespace) -> tuple[list[dict[str, Any]], Pairs]:
    rows = training_pairs(args.data, args.limit, args.seed, True, args.share)
    return rows, Pairs([premise_sentences(r["premise"])[:TRAIN_PREMISE_SENTENCES] for r in rows],
                       [r["hypothesis"] for r in rows],
                       [LABELS.index(r["label"]) for r in rows])


def train_joint(args: argparse.Namespace, frozen: Frozen) -> tuple[Any, dict[str, Any]]:
    """Fit the joint layer on the NLI training pairs; held-out NLI figures."""
    from heads.nli import evaluate

    rows, pairs = nli_pairs(args)
    held = split(rows)
    is_edit = np.array([r["kind"].startswith("edit_") for r in rows])
    training = np.flatnonzero(~held)
    stop = np.array([stable_fraction("stop:" + premise_key(rows[i]["premise"]))
                     < EARLY_STOP_SHARE for i in training])
    logger.info("pairs %d (training %d, stop %d, validation %d), sentences %d", len(rows),
                int((~stop).sum()), int(stop.sum()), int(held.sum()), len(pairs.texts))
    started = time.perf_counter()
    states, offsets = cached_states(frozen, pairs.texts, args.cache_dir / "layer5")
    encoded = time.perf_counter() - started
    model = build(frozen, args.layer_dropout)
    model, history = fit(args, model, pairs, states, offsets, training[~stop], training[stop],
                         hypothesis_weight=1)
    trained = time.perf_counter() - started - encoded
    validation = np.flatnonzero(held & ~is_edit)
    figures = evaluate(logits_of(model, pairs, validation, states, offsets), pairs.y[validation])
    edits = np.flatnonzero(held & is_edit)
    edit_logits = logits_of(model, pairs, edits, states, offsets)
    return model, {"pairs": len(rows), "train": int((~stop).sum()), "stop": int(stop.sum()),
                   "validation": len(validation), "validation_figures": figures,
                   "edit_entailment_rate": float((edit_logits.argmax(1) == 0).mean()),
                   "history": history, "seconds_states": round(encoded, 1),
                   "seconds_training": round(trained, 1)}


def trained_joint(args: argparse.Namespace, frozen: Frozen) -> tuple[Any, dict[str, Any]]:
    """:func:`train_joint`, or its model and figures saved under ``--cache-dir`` by an earlier
    run with the same training options."""
    import torch

    options = ("seed", "limit", "share", "epochs", "batch", "lr_layer", "lr_head",
               "layer_dropout")
    key = "-".join(f"{getattr(args, o)}" for o in options)
    path = args.cache_dir / "joint-layer" / f"{key}.pt"
    if path.is_file():
        saved = torch.load(path, weights_only=False)
        model = build(frozen, args.layer_dropout)
        model.load_state_dict(saved["state"])
        return model, saved["nli"]
    model, nli = train_joint(args, frozen)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state": model.state_dict(), "nli": nli}, path)
    return model, nli


def summedits_pairs(top_k: int, per_domain: int | None) -> tuple[Any, Pairs, list[np.ndarray]]:
    """SummEdits, each summary sentence with its ``top_k`` closest document sentences (MiniLM
    cosine, in document order) as premise; per summary, the rows of its sentences."""
    from assay.backends.embed import get_embedder
    from assay.evaluators.embedding_base import sentences_of

    data = load(per_domain)
    docs = [premise_sentences(d) for d in data["doc"]]
    claims = [sentences_of(s) or [s] for s in data["summary"]]
    texts = list(dict.fromkeys([t for d in docs for t in d] + [c for cs in claims for c in cs]))
    vectors = get_embedder("minilm").encode(texts)
    where = {t: i for i, t in enumerate(texts)}
    premises, hypotheses, rows_of, n = [], [], [], 0
    for doc, sentences in zip(docs, claims, strict=True):
        doc_v = vectors[[where[t] for t in doc]]
        rows = []
        for claim in sentences:
            cos = doc_v @ vectors[where[claim]]
            chosen = sorted(np.argsort(-cos)[:top_k].tolist())
            premises.append([doc[i] for i in chosen])
            hypotheses.append(claim)
            rows.append(n)
            n += 1
        rows_of.append(np.array(rows))
    return data, Pairs(premises, hypotheses, [-1] * n), rows_of


def shipped_signal(pairs: Pairs, data: Any, rows_of: list[np.ndarray], spec: str
                   ) -> np.ndarray:
    """A shipped NLI head's (``spec``) P(entailment) of each summary sentence against its whole
    document, minimum per summary."""
    from assay.backends.nli import get_nli

    nli = get_nli(spec)
    premises, hypotheses = [], []
    for doc, rows in zip(data["doc"], rows_of, strict=True):
        for r in rows:
            premises.append(doc)
            hypotheses.append(pairs.texts[pairs.hypothesis[r]])
    scores = nli.predict(premises, hypotheses)
    entail = scores.probs[:, list(scores.labels).index("entailment")]
    return np.array([entail[rows].min() for rows in rows_of])


def table_row(name: str, scores: np.ndarray, labels: np.ndarray, domains: np.ndarray) -> str:
    cells = [f"{auroc(scores, labels):.3f}"]
    cells += [f"{auroc(scores[domains == d], labels[domains == d]):.3f}"
              for d in sorted(set(domains))]
    return f"| {name} | " + " | ".join(cells) + " |"


def ceiling_rows(data: Any, labels: np.ndarray, domains: np.ndarray, joint: np.ndarray
                 ) -> list[str]:
    """Leave-one-domain-out logistic regressions (fitted on SummEdits: ceilings, not detectors)
    on the nine ``hallucination_score`` signals' minima, with and without ``joint``."""
    from summedits_signals import leave_one_domain_out, signal_minima

    minima = signal_minima(data, "head")
    both = np.concatenate([minima, joint], axis=1)
    return [
        "## Ceiling of a linear combination (fitted leave-one-domain-out on SummEdits)",
        "",
        "| signals | pooled | " + " | ".join(sorted(set(domains))) + " |",
        "|---|" + "---:|" * (1 + len(set(domains))),
        table_row("the nine `hallucination_score` signals", leave_one_domain_out(
            minima, labels, domains), labels, domains),
        table_row("the nine + the joint layer's two", leave_one_domain_out(
            both, labels, domains), labels, domains),
        table_row("the joint layer's two alone", leave_one_domain_out(
            joint, labels, domains), labels, domains),
    ]


def main(argv: list[str] | None = None) -> int:
    import torch
    from heads.common import add_common_arguments

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_arguments(parser)
    add_fine_tune_arguments(parser, epochs=2, unit="pairs")
    parser.add_argument("--share", type=float, default=1.0, help="share of training premises")
    parser.add_argument("--top-k", type=int, default=3, help="premise sentences per claim")
    parser.add_argument("--signals", action="store_true",
                        help="also the leave-one-domain-out ceiling of the nine "
                             "hallucination_score signals with and without the joint layer's")
    parser.add_argument("--per-domain", type=int, default=None,
                        help="SummEdits summaries per domain (first by id; default all)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if not DATA.is_dir():
        print(f"SummEdits not found at {DATA}; see shared/data/README.md", file=sys.stderr)
        return 1
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    frozen = Frozen()
    model, nli = trained_joint(args, frozen)
    logger.info("NLI %s", nli["validation_figures"])

    data, pairs, rows_of = summedits_pairs(args.top_k, args.per_domain)
    states, offsets = cached_states(frozen, pairs.texts, args.cache_dir / "layer5")
    every = np.arange(len(pairs.y))
    started = time.perf_counter()
    logits = logits_of(model, pairs, every, states, offsets)
    joint_seconds = time.perf_counter() - started
    probs = torch.softmax(torch.from_numpy(logits), dim=1).numpy()
    labels, domains = data["label"].to_numpy(), data["domain"].to_numpy()
    entail = np.array([probs[rows, 0].min() for rows in rows_of])
    margin = np.array([(probs[rows, 0] - probs[rows, 2]).min() for rows in rows_of])
    shipped = {spec: shipped_signal(pairs, data, rows_of, spec) for spec in SHIPPED_HEADS}
    started = time.perf_counter()
    frozen.states(pairs.texts)
    pass_seconds = time.perf_counter() - started

    figures = nli["validation_figures"]
    lines = [
        "# Experiment: one joint top layer over premise and hypothesis (issue 19)",
        "",
        f"Written by `scripts/experiments/nli_cross_layer.py` (seed {args.seed}, share "
        f"{args.share}, {args.epochs} epochs, layer LR {args.lr_layer}, head LR {args.lr_head}, "
        f"top-k {args.top_k}); Python {platform.python_version()}, {platform.machine()}, "
        f"{args.threads} threads.",
        "",
        "## Held-out NLI pairs",
        "",
        f"{nli['pairs']} pairs ({nli['train']} training, {nli['stop']} early stopping, "
        f"{nli['validation']} validation); layer-5 states {nli['seconds_states']} s, training "
        f"{nli['seconds_training']} s.",
        "",
        "| model | accuracy | entailment AUROC | held-out edits read as entailment |",
        "|---|---:|---:|---:|",
        f"| joint layer 6 | {figures['accuracy']:.3f} | {figures['entailment_auroc']:.3f} | "
        f"{nli['edit_entailment_rate']:.3f} |",
        "| token head `nli-token` (`nli=\"head-token\"`; its model card) | 0.648 | 0.870 | — |",
        "| sentence head `nli` (the default `nli=\"head\"`; its model card) | 0.633 | 0.853 | — |",
        "",
        f"Early-stopping history: {nli['history']}",
        "",
        "## SummEdits (AUROC, consistent vs not; minimum over the summary's sentences)",
        "",
        "| signal | pooled | " + " | ".join(sorted(set(domains))) + " |",
        "|---|" + "---:|" * (1 + len(set(domains))),
        table_row("joint layer: P(entailment), top-k sentences", entail, labels, domains),
        table_row("joint layer: P(entailment) - P(contradiction)", margin, labels, domains),
        *(table_row(f"{SHIPPED_HEADS[spec]}: P(entailment), whole document", shipped[spec],
                    labels, domains) for spec in SHIPPED_HEADS),
        "",
        "## Cost",
        "",
        f"- joint layer over {len(every)} (top-{args.top_k} premise, claim) inputs: "
        f"{joint_seconds:.1f} s; layers 1-5 of MiniLM over the {len(pairs.texts)} distinct "
        f"sentences they read: {pass_seconds:.1f} s ({joint_seconds / pass_seconds:.1%} of "
        "five sixths of the shared pass; the pass also reads every document sentence that is "
        "not among any claim's top-k, so this overstates the share).",
    ]
    if args.signals:
        lines += ["", *ceiling_rows(data, labels, domains, np.stack([entail, margin], axis=1))]
    publish(args.out or OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
