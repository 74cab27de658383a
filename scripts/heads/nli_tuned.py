"""The tuned NLI head: MiniLM's last layer fine-tuned with the token NLI head (issue 19).

``python scripts/train_heads.py --head nli-tuned``. The token NLI head (:mod:`heads.nli_token`)
soft-aligns *frozen* MiniLM token vectors; this one trains a copy of MiniLM's last layer
(layers 1-5 stay frozen and shared with every other evaluator; design note 0044) together with
that head's projection, comparison and classifier, initialised from the shipped ``nli-token``
head, on exactly its rows (the same pairs, detail edits, share of training premises,
early-stopping premises and grouped validation premises). AdamW with a linear warm-up and decay;
the state with the best early-stopping accuracy (checked every half epoch, and before the first
step) is kept.

Everything the token head reads from the encoder comes from the tuned layer, as it will in use:
the premise and hypothesis token vectors and the sentence vectors behind ``cos_best`` /
``cos_mean`` (and so which premise sentence is closest, whose negation ``negation_mismatch``
compares). The lexical scalars do not depend on the encoder and are computed once.

The frozen layer-5 states of every sentence are cached as float16 under ``<cache-dir>/layer5``.
After writing the head folder, the trainer scores the validation pairs through the shipped
inference path (:class:`assay.backends.nli.head_nli.HeadNLI` over
:class:`assay.backends.embed.top_layer.TopLayerEmbedder`), refuses a 99th-percentile logit gap
to the torch model above :data:`MAX_GAP`, and reports the validation figures of that path.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from assay.backends.heads.nli_features import (
    N_VECTOR_SCALARS,
    SCALARS,
    lexical_fingerprint,
    premise_sentences,
    text_scalars,
    texts_of_pairs,
)
from assay.backends.heads.nli_tokens import FEATURE_SET, TOKEN_SCALARS, TokenAligner, n_features
from assay.backends.heads.store import Head, load_head
from assay.text.facts import is_negated
from assay.text.rules_probe import FINGERPRINT
from heads.common import (
    EMBEDDER,
    SHIPPED,
    logger,
    put_head_arrays,
    stable_fraction,
    torch_head_arrays,
    write_head,
)
from heads.nli import LABELS, LICENCES, premise_key, split, validation_report
from heads.nli_token import EARLY_STOP_SHARE, build_model, edit_metrics, training_pairs
from heads.top_layer import (
    HEADS,
    Frozen,
    add_fine_tune_arguments,
    cached_states,
    fine_tune,
    padded,
    pair_batches,
    pair_logits,
    pool,
)

NAME = "nli-tuned"
#: The head whose rows, sizes and weights this one starts from.
START = "nli-token"
#: Largest 99th-percentile logit gap allowed between the torch model and the shipped path.
MAX_GAP = 0.05
#: Column of ``negation_mismatch`` among the text scalars (recomputed from the closest sentence).
MISMATCH = SCALARS.index("negation_mismatch") - N_VECTOR_SCALARS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of this head."""
    add_fine_tune_arguments(parser, epochs=2, unit="pairs")


class PairTexts:
    """Each pair as indices into the distinct sentences, with what does not depend on the
    encoder: the text scalars (the closest sentence's negation recomputed in training) and the
    negation of every sentence."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        premises = [r["premise"] for r in rows]
        hypotheses = [r["hypothesis"] for r in rows]
        self.texts = texts_of_pairs(premises, hypotheses)
        index = {t: i for i, t in enumerate(self.texts)}
        self.negated = np.array([is_negated(t) for t in self.texts], dtype=np.float32)
        self.premise = [np.array([index[s] for s in premise_sentences(p)]) for p in premises]
        self.hypothesis = np.array([index[h] for h in hypotheses])
        self.scalars = np.array([text_scalars(p, h, premise_sentences(p)[0])
                                 for p, h in zip(premises, hypotheses, strict=True)],
                                dtype=np.float32)
        self.y = np.array([LABELS.index(r["label"]) for r in rows])


def build(frozen: Frozen, dropout: float, start: Head, sizes: dict[str, int]) -> Any:
    """Layer 6 (a copy of the pretrained one) and the token NLI head's torch mirror with the
    ``start`` head's weights and standardisation."""
    import torch
    from torch import nn

    from assay.backends.embed.top_layer import top_layer_class

    class Tuned(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer = top_layer_class().from_bert(frozen.layer6, HEADS, dropout)
            self.head = build_model(argparse.Namespace(**sizes), start.mean, start.scale)

        def forward(self, pairs: PairTexts, rows: np.ndarray, states: np.ndarray,
                    offsets: np.ndarray) -> Any:
            """Logits of the pairs ``rows``: each distinct sentence of the batch once through
            the layer, then premises concatenated, sentence scalars recomputed."""
            ids = np.unique(np.concatenate([pairs.hypothesis[rows],
                                            *(pairs.premise[r] for r in rows)]))
            where = {int(t): k for k, t in enumerate(ids)}
            h5, mask = padded(states, offsets, ids)
            x, tok, vectors = pool(self.layer(h5, mask), mask)
            tokens = [x[k][tok[k]] for k in range(len(ids))]
            pad = nn.utils.rnn.pad_sequence
            p_list, h_list, s_rows = [], [], []
            for r in rows:
                sentences = [where[int(t)] for t in pairs.premise[r]]
                hyp = where[int(pairs.hypothesis[r])]
                p_list.append(torch.cat([tokens[k] for k in sentences]))
                h_list.append(tokens[hyp])
                cos = vectors[sentences] @ vectors[hyp]
                best = int(torch.argmax(cos))
                mismatch = float(pairs.negated[pairs.premise[r][best]]
                                 != pairs.negated[pairs.hypothesis[r]])
                fixed = torch.from_numpy(pairs.scalars[r])
                s_rows.append(torch.cat([cos.max()[None], cos.mean()[None], fixed[:MISMATCH],
                                         torch.tensor([mismatch]), fixed[MISMATCH + 1:]]))
            p, h = pad(p_list, batch_first=True), pad(h_list, batch_first=True)
            pm = _mask([len(m) for m in p_list], p.shape[1])
            hm = _mask([len(m) for m in h_list], h.shape[1])
            return self.head(p, pm, h, hm, torch.stack(s_rows))

    model = Tuned()
    (w1, b1), (w2, b2) = start.layers
    put_head_arrays(model.head, {
        "proj": (start.extra["proj_W"], start.extra["proj_b"]),
        "cmp": (start.extra["cmp_W"], start.extra["cmp_b"]),
        "hidden": (w1, b1), "out": (w2, b2)})
    return model


def _mask(lengths: list[int], width: int) -> Any:
    import torch

    return torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]


def logits_of(model: Any, pairs: PairTexts, rows: np.ndarray, states: np.ndarray,
              offsets: np.ndarray) -> np.ndarray:
    """Torch logits of the pairs ``rows``, in that order."""
    return pair_logits(model, pairs, rows, states, offsets, len(LABELS))


def fit(args: argparse.Namespace, model: Any, pairs: PairTexts, states: np.ndarray,
        offsets: np.ndarray, train_rows: np.ndarray, stop_rows: np.ndarray,
        hypothesis_weight: int = 2) -> tuple[Any, list[dict[str, Any]]]:
    """Train layer and head together; keep the state with the best early-stopping accuracy.
    ``model(pairs, rows, states, offsets)`` gives the logits of ``rows``; batches group pairs
    of similar length (:func:`heads.top_layer.pair_batches`, ``hypothesis_weight``)."""
    import torch

    rng = np.random.default_rng(args.seed)

    def check() -> float:
        logits = logits_of(model, pairs, stop_rows, states, offsets)
        return float((logits.argmax(1) == pairs.y[stop_rows]).mean())

    def loss_of(chunk: np.ndarray) -> Any:
        logits = model(pairs, chunk, states, offsets)
        return torch.nn.functional.cross_entropy(logits, torch.from_numpy(pairs.y[chunk]))

    history = fine_tune(model, args, len(train_rows),
                        lambda: pair_batches(pairs, offsets, train_rows, args.batch, rng,
                                             hypothesis_weight), loss_of,
                        check, "early_stop_accuracy")
    return model, history


def train(args: argparse.Namespace) -> int:
    """Cache the layer-5 states, fine-tune, write the ``nli-tuned`` head folder and measure it
    through the shipped inference path."""
    import torch

    from heads.nli_tuned_card import model_card

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    start = load_head(START)
    trained_as = start.header["training"]
    sizes = {"project": int(trained_as["project"]), "compare": int(trained_as["compare"]),
             "hidden": int(trained_as["hidden"][0])}
    rows = training_pairs(args.data, args.limit, args.seed, bool(trained_as["edits"]),
                          float(trained_as["train_share"]))
    held = split(rows)
    is_edit = np.array([r["kind"].startswith("edit_") for r in rows])
    training = np.flatnonzero(~held)
    stop = np.array([stable_fraction("stop:" + premise_key(rows[i]["premise"]))
                     < EARLY_STOP_SHARE for i in training])
    pairs = PairTexts(rows)
    logger.info("pairs: %d (%d training, %d early stop, %d validation), %d distinct sentences",
                len(rows), int((~stop).sum()), int(stop.sum()), int(held.sum()),
                len(pairs.texts))
    frozen = Frozen()
    states, offsets = cached_states(frozen, pairs.texts, args.cache_dir / "layer5")
    encoded = time.perf_counter() - started
    model = build(frozen, args.layer_dropout, start, sizes)
    model, history = fit(args, model, pairs, states, offsets, training[~stop], training[stop])
    trained = time.perf_counter() - started - encoded

    extra, layers = torch_head_arrays(model.head, ("proj", "cmp"), ("hidden", "out"))
    extra.update(model.layer.arrays())
    head = Head(NAME, LABELS, FEATURE_SET, layers, start.mean, start.scale, extra=extra)
    info: dict[str, Any] = {
        "seed": args.seed, "limit": args.limit, "start": START,
        "train_share": float(trained_as["train_share"]), "edits": bool(trained_as["edits"]),
        "epochs": args.epochs, "batch": args.batch, "lr_layer": args.lr_layer,
        "lr_head": args.lr_head, "layer_dropout": args.layer_dropout, "threads": args.threads,
        **sizes, "hidden": [sizes["hidden"]], "n_features": n_features(sizes["compare"]),
        "token_scalars": list(TOKEN_SCALARS), "scalar_features": list(SCALARS),
        FINGERPRINT: lexical_fingerprint(),
        "top_layer": {"layer": 6, "heads": HEADS,
                      "eps": float(frozen.layer6.output.LayerNorm.eps),
                      "parameters": int(sum(p.numel() for p in model.layer.parameters())),
                      "dtype": "float16"},
        "embedder": f"{EMBEDDER}, layers 1-5 frozen, layer 6 fine-tuned (this head's x_top_*)",
        "rows": {s: int(sum(r["source"] == s and not r["kind"].startswith("edit_")
                            for r in rows)) for s in sorted({r["source"] for r in rows})},
        "edit_rows": {k: int(sum(r["kind"] == k for r in rows))
                      for k in sorted({r["kind"] for r in rows if r["kind"].startswith("edit_")})},
        "train_rows": int((~stop).sum()), "early_stop_rows": int(stop.sum()),
        "history": history,
    }
    out = args.out or SHIPPED / NAME
    write_head(out, head, info, lambda digest: "")  # the folder the shipped path reads
    validation = np.flatnonzero(held & ~is_edit)
    metrics = shipped_metrics(out, model, pairs, rows, validation, np.flatnonzero(held & is_edit),
                              states, offsets)
    if metrics["shipped_path_logit_gap"]["p99"] > MAX_GAP:
        raise SystemExit(f"the shipped path and the torch model disagree: "
                         f"{metrics['shipped_path_logit_gap']}")
    info.update(validation_rows=len(validation), metrics=metrics,
                start_metrics=trained_as["metrics"],
                seconds={"layer5_states": round(encoded, 1), "training": round(trained, 1),
                         "total": round(time.perf_counter() - started, 1)})
    write_head(out, head, info, lambda digest: model_card(info, digest, LICENCES))
    logger.info("validation %s; edits %s", metrics["validation"],
                metrics.get("validation_edits"))
    return 0


def shipped_metrics(folder: Any, model: Any, pairs: PairTexts, rows: list[dict[str, Any]],
                    validation: np.ndarray, edits: np.ndarray, states: np.ndarray,
                    offsets: np.ndarray) -> dict[str, Any]:
    """Validation figures of the head as assay runs it (``HeadNLI`` reading the
    ``TopLayerEmbedder``'s float16 token matrices), and its logit gap to the torch model."""
    from assay.backends.nli.head_nli import HeadNLI

    nli = HeadNLI(str(folder))
    head = nli.load()
    premises = [rows[i]["premise"] for i in validation]
    hypotheses = [rows[i]["hypothesis"] for i in validation]
    logits = nli.predict(premises, hypotheses).logits
    reference = logits_of(model, pairs, validation, states, offsets)
    gap = np.abs(logits - reference).max(axis=1)
    out: dict[str, Any] = {
        **validation_report(logits, pairs.y[validation],
                            [rows[i]["source"] for i in validation]),
        "shipped_path_logit_gap": {"p99": round(float(np.quantile(gap, 0.99)), 5),
                                   "max": round(float(gap.max()), 5),
                                   "mean": round(float(gap.mean()), 6), "n": len(gap)},
    }
    if len(edits):
        out["validation_edits"] = edit_metrics(head, TokenAligner.from_arrays(head.extra),
                                               nli.resolved_embedder(), rows, edits, validation,
                                               logits)
    return out
