"""The tuned toxicity head: MiniLM's last layer fine-tuned with the token head (issue 19).

``python scripts/train_heads.py --head toxicity-tuned``. Design notes 0042 (the experiment) and
0044 (shipping it). The token toxicity head (:mod:`heads.toxicity_token`) reads *frozen* MiniLM
token vectors; this one trains a copy of MiniLM's last layer (layer 6; layers 1-5 and the
embeddings stay frozen and shared with every other evaluator) together with the token head's
pooling and classifier, initialised from the shipped ``toxicity-token`` head, on that head's
rows (its data, targets, class weights, ToxiGen weight, early-stopping rows and dev split,
:func:`heads.toxicity_token.dev_split`) and assay's contrast rows
(:mod:`heads.toxicity_contrast`, split by the same hash; ``--no-contrast`` leaves them out;
design note 0054). AdamW with a linear warm-up and decay; the state with the best
early-stopping AUROC of ``toxicity`` (checked every half epoch) is kept. The output biases of
``toxicity`` and ``threat`` are then moved so that, at 0.5, each flags a set share of the dev
texts of the labelled sources that are labelled not toxic: ``toxicity`` the shipped token head's
share, ``threat`` :data:`THREAT_BENIGN_RATE` (design note 0045; chosen on the dev split only).

The frozen layer-5 states of the training texts are computed once and cached as float16 under
``<cache-dir>/layer5`` (outside the repository). The head folder holds the layer (``x_top_*``,
float16), the pooling and classifier, and the token head's spelling-normaliser lexicon; after
writing it, the trainer scores dev texts through the shipped inference path
(:class:`assay.backends.classify.head.HeadClassifier` over
:class:`assay.backends.embed.top_layer.TopLayerEmbedder`) and refuses a gap to the torch model
above :data:`MAX_GAP`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.heads.store import Head, load_head, save_head
from assay.backends.heads.token_pool import FEATURE_SET, TokenPooler
from heads.common import (
    EMBEDDER,
    SHIPPED,
    logger,
    put_head_arrays,
    stable_fraction,
    torch_head_arrays,
    write_head,
)
from heads.top_layer import (
    DIM,
    HEADS,
    Frozen,
    add_fine_tune_arguments,
    cached_states,
    fine_tune,
    length_batches,
    padded,
    pool,
)
from heads.toxicity import DIRECT, LICENCES, auroc
from heads.toxicity_contrast import CONTRAST, contrast_examples
from heads.toxicity_data import TOXICITY_TARGETS, toxicity_examples
from heads.toxicity_token import (
    EARLY_STOP_SHARE,
    TOXIGEN_WEIGHT,
    build_model,
    dev_metrics,
    dev_split,
    loss_weights,
    target_matrix,
)

NAME = "toxicity-tuned"
#: The head whose pooling/classifier initialise this one and whose dev false-positive rates
#: and spelling normaliser it keeps.
START = "toxicity-token"
#: Largest 99th-percentile logit gap allowed between the torch model and the shipped inference
#: path (float16 layer weights and token matrices; a few odd texts, such as ASCII art of 150
#: punctuation tokens, move by a few tenths). 0.05 until the contrast rows (design note 0054):
#: their sharper layer moves the 99th percentile to 0.06-0.09 (at most 0.025 in probability),
#: rounding and not a bug, which this guard is for.
MAX_GAP = 0.1
#: Share of the dev texts labelled not toxic that ``threat`` flags at 0.5 (design note 0045:
#: at the token head's rate, 0.054 here, its sharp outputs flagged 3 of the demo's 494 banking
#: sentences, liability clauses among them; at 0.02 its dev threat recall is 0.75 against 0.85).
THREAT_BENIGN_RATE = 0.02


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of this head."""
    add_fine_tune_arguments(parser, epochs=3, unit="texts")
    parser.add_argument("--no-contrast", action="store_false", dest="contrast",
                        help="leave out the contrast rows (heads.toxicity_contrast)")
    parser.add_argument("--speaker-rows", action="store_true",
                        help="add the speaker contrast rows (quoted hate condemned or "
                             "delivered; design note 0055: measured, not shipped)")


# ---------------------------------------------------------------------------------------------
# the model: the shipped layer class + the token head's torch mirror
def build(frozen: Frozen, dropout: float, init: str = START) -> Any:
    """Layer 6 (a copy of the pretrained one) and the token head's pooling + classifier,
    initialised from the shipped head ``init`` with its dev-chosen output-bias offsets removed
    (``init=""``: the head at random)."""
    from torch import nn

    from assay.backends.embed.top_layer import top_layer_class

    class Tuned(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = top_layer_class().from_bert(frozen.layer6, HEADS, dropout)
            self.head = build_model(argparse.Namespace(project=128, queries=4, hidden=128), DIM)

        def features(self, h5: Any, mask: Any) -> tuple[Any, Any, Any]:
            """The pooled output of the layer, as the shipped embedder pools it."""
            return pool(self.layer(h5, mask), mask)

        def forward(self, h5: Any, mask: Any) -> Any:
            return self.head(*self.features(h5, mask))

    model = Tuned()
    if init:
        shipped = load_head(init)
        offsets = shipped.header["training"]["metrics"]["bias_offsets"]
        (w1, b1), (w2, b2) = shipped.layers
        if np.any(shipped.mean != 0) or np.any(shipped.scale != 1):
            raise SystemExit(f"the head {init!r} standardises its inputs: not handled")
        b2 = np.array(b2, dtype=np.float32)
        for target, offset in offsets.items():
            b2[TOXICITY_TARGETS.index(target)] -= offset
        put_head_arrays(model.head, {
            "proj": (shipped.extra["proj_W"], shipped.extra["proj_b"]),
            "query": (shipped.extra["query_W"], shipped.extra["query_b"]),
            "hidden": (w1, b1), "out": (w2, b2)})
    return model


def logits_of(model: Any, states: np.ndarray, offsets: np.ndarray, text_rows: np.ndarray,
              batch: int = 256) -> np.ndarray:
    """Logits of the texts ``text_rows`` (indices into the cached unique texts)."""
    import torch

    model.eval()
    lengths = np.diff(offsets)
    out = np.zeros((len(text_rows), len(TOXICITY_TARGETS)))
    order = np.argsort(lengths[text_rows], kind="stable")
    with torch.inference_mode():
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            out[idx] = model(*padded(states, offsets, text_rows[idx])).double().numpy()
    return out


def fit(args: argparse.Namespace, model: Any, states: np.ndarray, offsets: np.ndarray,
        text_of: np.ndarray, y: np.ndarray, row_weight: np.ndarray, positive: np.ndarray,
        train_rows: np.ndarray, stop_rows: np.ndarray) -> tuple[Any, list[dict[str, Any]]]:
    """Train layer and head together; keep the state with the best early-stopping AUROC."""
    import torch

    rng = np.random.default_rng(args.seed)
    lengths = np.diff(offsets)[text_of]
    pos_weight = torch.from_numpy(positive)
    stop_rows = stop_rows[y[stop_rows, 0] >= 0]

    def check() -> float:
        return auroc(y[stop_rows, 0], logits_of(model, states, offsets, text_of[stop_rows])[:, 0]
                     ) or 0.0

    def loss_of(chunk: np.ndarray) -> Any:
        h5, mask = padded(states, offsets, text_of[chunk])
        target = torch.from_numpy(y[chunk].astype(np.float32))
        weight = (target >= 0).float() * torch.from_numpy(row_weight[chunk])[:, None]
        losses = torch.nn.functional.binary_cross_entropy_with_logits(
            model(h5, mask), target.clamp(min=0), pos_weight=pos_weight, reduction="none")
        return (losses * weight).sum() / weight[:, 0].sum().clamp(min=1)

    history = fine_tune(model, args, len(train_rows),
                        lambda: length_batches(lengths, train_rows, args.batch, rng), loss_of,
                        check, "early_stop_auroc")
    return model, history


def matched_bias(logits: np.ndarray, y: np.ndarray, rates: dict[str, float]) -> np.ndarray:
    """Per target, the output-bias shift with which it flags, at 0.5, the share ``rates`` of the
    dev texts labelled not toxic (not: of the texts not labelled with the target, most of which
    are toxic).

    Example (six targets; rows 0-3 not toxic, row 4 a toxic threat, row 5 toxic, no threat):
        >>> y = np.array([[0, -1, -1, 0, -1, -1]] * 4 + [[1, -1, -1, 1, -1, -1],
        ...                                               [1, -1, -1, 0, -1, -1]])
        >>> logits = np.zeros((6, 6))
        >>> logits[:, 3] = [-2.0, 0.0, 1.0, 2.0, 5.0, 4.0]
        >>> bias = matched_bias(logits, y, {"threat": 0.25})
        >>> float(bias[3]), ((logits[:4, 3] + bias[3]) >= 0).mean().item()
        (-1.25, 0.25)
    """
    bias = np.zeros(len(TOXICITY_TARGETS))
    benign = y[:, 0] == 0
    for target, rate in rates.items():
        k = TOXICITY_TARGETS.index(target)
        bias[k] = -float(np.quantile(logits[benign, k], 1.0 - rate))
    return bias


# ---------------------------------------------------------------------------------------------
def train(args: argparse.Namespace) -> int:
    """Cache the layer-5 states, fine-tune, match the dev false-positive rates, write the
    ``toxicity-tuned`` head folder and check it through the shipped inference path."""
    import torch

    from heads.toxicity_tuned_card import toxicity_tuned_card

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    labelled = toxicity_examples(args.data, limit=args.limit, seed=0)
    contrast = contrast_examples(speaker=args.speaker_rows) if args.contrast else []
    if args.limit:  # as every source file: an even sample of at most ``limit`` rows
        contrast = contrast[:: max(1, len(contrast) // args.limit)][: args.limit]
    train_examples, dev_examples = dev_split([*labelled, *contrast])
    everything = [*train_examples, *dev_examples]
    training = np.arange(len(train_examples))
    dev = np.arange(len(train_examples), len(everything))
    stop = np.array([stable_fraction("stop:" + everything[i].text) < EARLY_STOP_SHARE
                     for i in training])
    y = target_matrix(everything)
    row_weight, positive = loss_weights(y, everything, TOXIGEN_WEIGHT)
    texts = list(dict.fromkeys(e.text for e in everything))
    index = {t: i for i, t in enumerate(texts)}
    text_of = np.array([index[e.text] for e in everything])
    sources = np.array([e.source for e in everything])

    frozen = Frozen()
    states, offsets = cached_states(frozen, texts, args.cache_dir / "layer5")
    encoded = time.perf_counter() - started
    model = build(frozen, args.layer_dropout)
    model, history = fit(args, model, states, offsets, text_of, y, row_weight, positive,
                         training[~stop], training[stop])
    trained = time.perf_counter() - started - encoded

    start = load_head(START)
    rates = {"threat": THREAT_BENIGN_RATE,
             "toxicity": start.header["training"]["metrics"]["dev_false_positive_rate"][
                 "toxicity"]}
    logits = logits_of(model, states, offsets, text_of[dev])
    labelled_dev = sources[dev] != CONTRAST  # the operating point as the start head's
    bias = matched_bias(logits[labelled_dev], y[dev][labelled_dev], rates)
    logits += bias
    extra, layers = torch_head_arrays(model.head, ("proj", "query"), ("hidden", "out"))
    layers[-1] = (layers[-1][0], (layers[-1][1] + bias).astype(np.float32))
    extra.update(model.layer.arrays())
    n_inputs = TokenPooler.from_arrays(extra).n_features(DIM)
    head = Head(NAME, TOXICITY_TARGETS, FEATURE_SET, layers, np.zeros(n_inputs, np.float32),
                np.ones(n_inputs, np.float32), extra=extra)
    contrast_dev = ~labelled_dev
    metrics = {"dev": dev_metrics(logits[labelled_dev], y[dev][labelled_dev],
                                  sources[dev][labelled_dev]),
               "dev_stance_contrast": (auroc(y[dev][contrast_dev, 0], logits[contrast_dev, 0])
                                       if contrast_dev.any() else None),
               "dev_start_head": start.header["training"]["metrics"]["dev"],
               "dev_false_positive_rate": {t: round(float(r), 4) for t, r in rates.items()},
               "dev_recall": {t: round(float((logits[y[dev, k] == 1, k] >= 0).mean()), 4)
                              for k, t in enumerate(TOXICITY_TARGETS) if t in rates},
               "bias_offsets": {t: round(float(bias[TOXICITY_TARGETS.index(t)]), 4)
                                for t in rates}}
    logger.info("dev: %s", metrics["dev"])
    info = {
        "output": "subtypes", "direct": list(DIRECT), "seed": args.seed, "limit": args.limit,
        "start": START, "epochs": args.epochs, "batch": args.batch, "lr_layer": args.lr_layer,
        "lr_head": args.lr_head, "layer_dropout": args.layer_dropout, "threads": args.threads,
        "toxigen_weight": TOXIGEN_WEIGHT, "n_features": n_inputs,
        "top_layer": {"layer": 6, "heads": HEADS, "eps": float(frozen.layer6.output.LayerNorm.eps),
                      "parameters": int(sum(p.numel() for p in model.layer.parameters())),
                      "dtype": "float16"},
        "embedder": f"{EMBEDDER}, layers 1-5 frozen, layer 6 fine-tuned (this head's x_top_*)",
        "rows": {s: int((sources[training] == s).sum()) for s in sorted(set(sources))},
        "dev_rows": {s: int((sources[dev] == s).sum()) for s in sorted(set(sources))},
        "early_stop_rows": int(stop.sum()), "history": history, "metrics": metrics,
        "seconds": {"layer5_states": round(encoded, 1), "training": round(trained, 1)},
    }
    out = args.out or SHIPPED / NAME
    data = dict(start.data)  # the spelling normaliser's lexicon, as the start head's
    save_head(out, name=NAME, labels=TOXICITY_TARGETS, features=FEATURE_SET, layers=layers,
              mean=head.mean, scale=head.scale, info=info, extra=extra, data=data)  # to check
    gaps = shipped_gaps(out, [everything[int(i)].text for i in dev[:: max(1, len(dev) // 300)]],
                        model, bias, frozen)
    info["metrics"]["shipped_path_logit_gap"] = gaps
    if gaps["p99"] > MAX_GAP:
        raise SystemExit(f"the shipped inference path and the torch model disagree: {gaps}")
    info["seconds"]["total"] = round(time.perf_counter() - started, 1)
    write_head(out, head, info,
               lambda digest: toxicity_tuned_card({**info, "data": data}, digest, LICENCES), data)
    return 0


def shipped_gaps(folder: Path, texts: list[str], model: Any, bias: np.ndarray, frozen: Frozen
                 ) -> dict[str, float]:
    """Per text, the largest logit gap between the torch model and the head as assay runs it
    (``HeadClassifier`` reading the ``TopLayerEmbedder``'s float16 token matrices):
    ``{"p99", "max", "mean", "n"}``."""
    from assay.backends.classify.head import HeadClassifier

    classifier = HeadClassifier(str(folder))
    read = classifier.read(texts)
    vectors, tokens = classifier.resolved_embedder().encode_with_tokens(read)
    shipped = classifier.logits_of(np.asarray(vectors, np.float32), tokens)
    states = frozen.states(read)
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in states])])
    reference = logits_of(model, np.concatenate(states), offsets, np.arange(len(read))) + bias
    gap = np.abs(shipped - reference).max(axis=1)
    return {"p99": round(float(np.quantile(gap, 0.99)), 5), "max": round(float(gap.max()), 5),
            "mean": round(float(gap.mean()), 6), "n": len(read)}
