"""Experiment (issue 19): fine-tune MiniLM's top layer with the token toxicity head.

Question: does training all-MiniLM-L6-v2's last transformer layer (layer 6; layers 1-5 and the
embeddings frozen) together with a pooling + classification head, on the token head's own
training rows, beat the frozen-feature heads on the held-out HateCheck-style suite?

What it does (seeded, CPU, 2 torch threads):

1. The token head's data, labels, dev split, early-stopping rows, row weights (ToxiGen 3x) and
   class weighting (:mod:`heads.toxicity_token`), unchanged.
2. The frozen layer-5 hidden states (the input of layer 6) of every training and dev text are
   computed once (the model cut after its fifth layer) and cached as float16 under
   ``--cache-dir`` (outside the repository).
3. Model: a copy of layer 6 initialised from the pretrained weights (a plain torch BERT layer
   checked against the library's own forward pass), then exactly the shipped token head's
   inputs (the L2-normalised mean of the layer's outputs as the sentence vector; the
   L2-normalised token outputs without [CLS]/[SEP] as the token matrix) and its pooling +
   classifier architecture, initialised from the shipped token head's weights (its dev-chosen
   output-bias offsets removed) with ``--init token`` (default) or at random with
   ``--init scratch``. AdamW (layer ``--lr-layer``, head ``--lr-head``), linear warm-up and
   decay, masked weighted binary cross-entropy as the token head's trainer; the state with the
   best early-stopping AUROC of ``toxicity`` (checked every half epoch) is kept.
4. As the shipped token head, the output biases of ``toxicity`` and ``threat`` are shifted so
   that their dev false-positive rates at 0.5 equal the shipped token head's (chosen on the dev
   split only).
5. Scored like the shipped heads: an adapter ``TextClassifier`` (the token head's spelling
   normaliser, the frozen layers, the fine-tuned layer + head, the same category arithmetic)
   inside the ``toxicity`` evaluator, with ``benchmarks/bench_toxicity.py``'s own functions, on
   the held-out suite, the design lists and Davidson; the dev split as
   ``benchmarks/bench_toxicity_dev.py`` (:func:`heads.toxicity_token.dev_metrics`); the shipped
   token head in the same run beside it. Cost: layer 6 + head (torch and numpy) on up to 1,000
   distinct Davidson sentences from their layer-5 states, against the full MiniLM pass of them.

``--augment {denial,opinion,both}`` adds design note 0040's augmentation rows to the fitting rows
only: hate as a denied positive statement (:func:`heads.toxicity_data.negated_positive_examples`,
``denial``) and / or hate phrased as an opinion with its benign twins
(:func:`heads.toxicity_data.opinion_examples`, ``opinion``), made by those functions from the
fitting rows' own texts (never from the early-stopping or dev rows, which stay as they are, so
the dev figures compare with a run without augmentation). Their layer-5 states are cached apart
from the others'.

Writes ``benchmarks/results/toxicity_finetune_experiment.md`` (``--out``) and the trained
weights to ``--cache-dir`` (never the repository).

Run: ``python scripts/experiments/toxicity_finetune.py [--train-share 1.0] [--epochs 2]
[--augment none|denial|opinion|both] [--dev-only]``
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import platform
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))

from heads.top_layer import HEADS, Frozen, cached_states, padded  # noqa: E402
from heads.toxicity_tuned import build, fit, logits_of  # noqa: E402  (the core, shipped since)

logger = logging.getLogger("toxicity_finetune")
OUT = REPO / "benchmarks" / "results" / "toxicity_finetune_experiment.md"


AUGMENTS = ("none", "denial", "opinion", "both")


def augmentation(kind: str, examples: Sequence[Any]) -> list[Any]:
    """Design note 0040's augmentation rows of ``kind`` (:data:`AUGMENTS`), made from
    ``examples`` by :mod:`heads.toxicity_data`'s own functions."""
    from heads.toxicity_data import negated_positive_examples, opinion_examples

    out = []
    if kind in ("opinion", "both"):
        out.extend(opinion_examples(examples))
    if kind in ("denial", "both"):
        out.extend(negated_positive_examples(examples))
    return out


def with_states(frozen: Frozen, states: np.ndarray, offsets: np.ndarray, texts: list[str],
                cache_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """``states`` / ``offsets`` followed by the (separately cached) states of ``texts``."""
    if not texts:
        return states, offsets
    more, more_offsets = cached_states(frozen, texts, cache_dir)
    return (np.concatenate([states, more]),
            np.concatenate([offsets, more_offsets[1:] + offsets[-1]]))


# ---------------------------------------------------------------------------------------------
# numpy inference of the fine-tuned layer + head (what shipping would need), for the cost
def numpy_arrays(model: Any) -> dict[str, np.ndarray]:
    """The trained weights as float32 arrays, each ``Linear`` weight transposed (inputs x
    outputs, C-ordered) and query / key / value fused into one ``(384, 1152)`` product."""
    sd = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    out = {k: (np.ascontiguousarray(v.T) if k.endswith(".weight") and v.ndim == 2 else v)
           for k, v in sd.items()}
    out["layer.qkv.weight"] = np.ascontiguousarray(np.concatenate(
        [out.pop(f"layer.{n}.weight") for n in ("query", "key", "value")], axis=1))
    out["layer.qkv.bias"] = np.concatenate([out.pop(f"layer.{n}.bias")
                                           for n in ("query", "key", "value")])
    return out


def _ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    x = x - mu
    var = np.einsum("ij,ij->i", x, x)[:, None] / x.shape[1]
    return x / np.sqrt(var + 1e-12) * g + b


def numpy_logits(w: dict[str, np.ndarray], h5: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The fine-tuned layer + head in numpy (float32, 2-D products), on a padded
    ``(b, t, 384)`` batch of similar lengths."""
    from scipy.special import erf

    def lin(x: np.ndarray, name: str) -> np.ndarray:
        return x @ w[f"{name}.weight"] + w[f"{name}.bias"]

    b, t, d = h5.shape
    flat = h5.reshape(b * t, d)
    qkv = lin(flat, "layer.qkv").reshape(b, t, 3, HEADS, d // HEADS).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    s = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / math.sqrt(d // HEADS))
    s += np.where(mask, np.float32(0.0), np.float32(-1e30))[:, None, None, :]
    s = np.exp(s - s.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b * t, d)
    a = _ln(lin(ctx, "layer.attention_out") + flat, w["layer.attention_norm.weight"],
            w["layer.attention_norm.bias"])
    u = lin(a, "layer.up")
    u = u * (np.float32(0.5) + np.float32(0.5) * erf(u * np.float32(1.0 / math.sqrt(2.0))))
    h = _ln(lin(u, "layer.down") + a, w["layer.output_norm.weight"],
            w["layer.output_norm.bias"])
    h3 = h.reshape(b, t, d)
    vec = (h3 * mask[..., None]).sum(1) / np.maximum(mask.sum(1), 1)[:, None]
    vec /= np.linalg.norm(vec, axis=-1, keepdims=True)
    tok = mask.copy()
    tok[:, 0] = False
    tok[np.arange(b), mask.sum(1) - 1] = False
    x = h / np.linalg.norm(h, axis=-1, keepdims=True) * tok.reshape(-1, 1)
    tok[~tok.any(1), 0] = True
    p = np.maximum(lin(x, "head.proj"), 0.0) * tok.reshape(-1, 1)
    ql = np.where(tok.reshape(-1, 1), lin(p, "head.query"), np.float32(-1e30))
    ql = ql.reshape(b, t, -1)
    ql = np.exp(ql - ql.max(1, keepdims=True))
    ql /= ql.sum(1, keepdims=True)
    p3 = p.reshape(b, t, -1)
    pooled = (ql.transpose(0, 2, 1) @ p3).reshape(b, -1)
    row = np.concatenate([vec, p3.max(1), pooled], -1)
    return lin(np.maximum(lin(row, "head.hidden"), 0.0), "head.out")


# ---------------------------------------------------------------------------------------------
# the adapter scored by the toxicity evaluator
class FinetunedClassifier:
    """A ``TextClassifier``: the token head's spelling normaliser, MiniLM layers 1-5, the
    fine-tuned layer 6 + head, the shipped heads' category arithmetic (``head_scores``)."""

    per_sentence = True

    def __init__(self, model: Any, frozen: Frozen, offsets: np.ndarray) -> None:
        from assay.backends.classify.head import HeadClassifier

        self.model, self.frozen, self.offsets = model, frozen, offsets
        self.reader = HeadClassifier("toxicity-token")

    @property
    def model_id(self) -> str:
        return "experiment:minilm-layer6-finetuned+token-head"

    def predict(self, texts: Sequence[str]) -> Any:
        import dataclasses

        from heads.toxicity import DIRECT
        from heads.toxicity_data import TOXICITY_TARGETS

        from assay.backends.classify.head import head_scores

        read = self.reader.read(texts)
        if not read:
            return head_scores(TOXICITY_TARGETS, "subtypes", np.zeros((0, 6)), DIRECT)
        states = self.frozen.states(read)
        offsets = np.concatenate([[0], np.cumsum([len(s) for s in states])])
        logits = logits_of(self.model, np.concatenate(states), offsets, np.arange(len(read)))
        scores = head_scores(TOXICITY_TARGETS, "subtypes", logits + self.offsets, DIRECT)
        return dataclasses.replace(scores, read_as=tuple(read))


# ---------------------------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/tox-ft-cache"))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-share", type=float, default=1.0,
                        help="seeded share of the training rows used (subsample)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr-layer", type=float, default=3e-5)
    parser.add_argument("--lr-head", type=float, default=3e-4)
    parser.add_argument("--layer-dropout", type=float, default=0.1)
    parser.add_argument("--init", choices=("token", "scratch"), default="token")
    parser.add_argument("--davidson-limit", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None,
                        help="rows per source file (a smoke test; results not comparable)")
    parser.add_argument("--dev-only", action="store_true",
                        help="stop after the dev split's figures (to choose a variant on dev)")
    parser.add_argument("--cache-only", action="store_true",
                        help="compute the layer-5 cache and stop")
    parser.add_argument("--augment", choices=AUGMENTS, default="none",
                        help="add design note 0040's rows (denial: hate as a denied positive "
                             "statement; opinion: hate phrased as an opinion and benign twins; "
                             "both), made from the fitting rows' own texts, to the fitting rows "
                             "only")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    import torch
    from heads.common import TRAINING_DATA, stable_fraction
    from heads.toxicity_data import COUNTER_SPEECH, TOXICITY_TARGETS, toxicity_examples
    from heads.toxicity_token import (
        EARLY_STOP_SHARE,
        TOXIGEN_WEIGHT,
        dev_metrics,
        dev_split,
        loss_weights,
        target_matrix,
    )

    from assay.backends.classify.head import HeadClassifier
    from assay.backends.heads.store import load_head
    from assay.backends.heads.token_pool import TokenPooler

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()

    # 1. data, split, labels: the token head's
    train_examples, dev_examples = dev_split(toxicity_examples(TRAINING_DATA, limit=args.limit,
                                                                 seed=0))
    everything = [*train_examples, *dev_examples]
    n_base = len(everything)
    training = np.arange(len(train_examples))
    dev = np.arange(len(train_examples), len(everything))
    stop = np.array([stable_fraction("stop:" + everything[i].text) < EARLY_STOP_SHARE
                     for i in training])
    fit_rows, stop_rows = training[~stop], training[stop]
    if args.train_share < 1.0:
        rng = np.random.default_rng(args.seed)
        fit_rows = np.sort(rng.choice(fit_rows, int(len(fit_rows) * args.train_share),
                                      replace=False))
    n_fit = len(fit_rows)
    texts = list(dict.fromkeys(e.text for e in everything))
    # augmentation (0040): made from the fitting rows' own texts (not the made counter-speech),
    # appended after the dev rows and added to the fitting rows only
    held_apart = {everything[i].text for i in (*stop_rows, *dev)}
    extra = [e for e in augmentation(args.augment, [everything[i] for i in fit_rows
                                                    if everything[i].source != COUNTER_SPEECH])
             if e.text not in held_apart]
    augmented_sources = dict(sorted(Counter(e.source for e in extra).items()))
    if extra:
        logger.info("augmentation rows: %s", augmented_sources)
    positive = loss_weights(target_matrix(everything), everything, TOXIGEN_WEIGHT)[1]
    everything = [*everything, *extra]
    fit_rows = np.concatenate([fit_rows, np.arange(n_base, len(everything))])
    y = target_matrix(everything)
    row_weight = loss_weights(y, everything, TOXIGEN_WEIGHT)[0]
    extra_texts = [t for t in dict.fromkeys(e.text for e in extra) if t not in set(texts)]
    index = {t: i for i, t in enumerate([*texts, *extra_texts])}
    text_of = np.array([index[e.text] for e in everything])
    sources = np.array([e.source for e in everything])

    # 2. frozen layer-5 states, cached
    frozen = Frozen()
    t_cache = time.perf_counter()
    states, offsets = cached_states(frozen, texts, args.cache_dir)
    states, offsets = with_states(frozen, states, offsets, extra_texts, args.cache_dir)
    t_cache = time.perf_counter() - t_cache
    if args.cache_only:
        return 0
    n_texts = len(texts) + len(extra_texts)
    logger.info("%d texts, %d tokens (mean %.1f)", n_texts, len(states), len(states) / n_texts)

    # parity: pretrained layer 6 (our torch layer) on cached states vs the library's pass
    pretrained = build(frozen, args.layer_dropout)
    from assay.backends.embed import minilm
    from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder(minilm.model_dir(), offline=True, verify_minilm=True)
    probe = list(range(0, len(texts), max(1, len(texts) // 200)))[:200]
    ref_vec, ref_tok = embedder.encode_with_tokens([texts[i] for i in probe])
    pretrained.eval()
    with torch.inference_mode():
        x, tok, vec = pretrained.features(*padded(states, offsets, probe))
    tok_gap = max(float(np.abs(x[k][tok[k]].numpy() - ref_tok[k]).max())
                  for k in range(len(probe)) if len(ref_tok[k]))
    vec_gap = float(np.abs(vec.numpy() - ref_vec).max())
    logger.info("parity with the library's pass (float16 cache): tokens %.2g, vectors %.2g",
                tok_gap, vec_gap)

    # shipped token head on the dev rows (its inputs from the cached states + pretrained layer)
    shipped = load_head("toxicity-token")
    pooler = TokenPooler.from_arrays(shipped.extra)

    def shipped_dev_logits() -> np.ndarray:
        out = np.zeros((len(dev), 6))
        with torch.inference_mode():
            for s in range(0, len(dev), 256):
                rows = text_of[dev[s : s + 256]]
                x, tok, vec = pretrained.features(*padded(states, offsets, rows))
                mats = [x[k][tok[k]].numpy() for k in range(len(rows))]
                out[s : s + 256] = shipped.logits(pooler.features(vec.numpy(), mats))
        return out

    token_dev = shipped_dev_logits()

    # 3. fine-tune
    torch.manual_seed(args.seed)
    model = build(frozen, args.layer_dropout, "toxicity-token" if args.init == "token" else "")
    t_train = time.perf_counter()
    model, history = fit(args, model, states, offsets, text_of, y, row_weight, positive,
                           fit_rows, stop_rows)
    t_train = time.perf_counter() - t_train
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.cache_dir / "finetuned.pt")

    # 4. dev logits, offsets matched to the shipped token head's dev false-positive rates
    ft_dev = logits_of(model, states, offsets, text_of[dev])
    rates = shipped.header["training"]["metrics"]["dev_false_positive_rate"]
    bias = np.zeros(6)
    for target, rate in rates.items():
        k = TOXICITY_TARGETS.index(target)
        negative = y[dev, k] == 0
        bias[k] = -float(np.quantile(ft_dev[negative, k], 1.0 - rate))
    ft_name = "layer 6 fine-tuned + token head" + (
        "" if args.augment == "none" else f", + {args.augment} rows")
    dev_rows = {"token head (shipped), same run": dev_metrics(token_dev, y[dev], sources[dev]),
                ft_name: dev_metrics(ft_dev + bias, y[dev], sources[dev])}

    if args.dev_only:
        print(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                          "augmentation_rows": augmented_sources,
                          "history": history, "dev": dev_rows}, default=str, indent=1))
        return 0

    # 5. the bench's harness: held-out suite, design lists, Davidson
    from bench_toxicity import auroc_ci, functional_rows, load, run_evaluator
    from toxicity_functional import FUNCTIONAL
    from toxicity_heldout import HELDOUT

    adapter = FinetunedClassifier(model, frozen, bias)
    scorers = {"token toxicity head (shipped)": "head-token", ft_name: adapter}
    tables = {}
    for name, lists in (("lists", FUNCTIONAL), ("heldout", HELDOUT)):
        flat = [t for _, lst in lists.values() for t in lst]
        tables[name] = functional_rows(lists, {n: run_evaluator(s, flat)[0]
                                               for n, s in scorers.items()})
    frame = load(args.davidson_limit or None)
    labels = frame["toxic"].to_numpy()
    davidson = {}
    for name, spec in scorers.items():
        s = run_evaluator(spec, frame["text"].tolist())[0]["toxicity_score"]
        keep = ~np.isnan(s)
        davidson[name] = (*auroc_ci(labels[keep], s[keep]),
                          float((s[keep & (labels == 0)] >= 0.5).mean()))

    # 6. cost on up to 1,000 distinct Davidson sentences
    from assay.text.sentences import split_sentences

    sentences = list(dict.fromkeys(s for t in frame["text"] for s in split_sentences(t)))[:1000]
    token_reader = HeadClassifier("toxicity-token")
    read = token_reader.read(sentences)
    embedder.encode_with_tokens(read[:8])
    t = time.perf_counter()
    vectors, tokens = embedder.encode_with_tokens(read)
    t_embed = time.perf_counter() - t
    h5 = frozen.states(read)
    h5_offsets = np.concatenate([[0], np.cumsum([len(s) for s in h5])])
    h5_flat = np.concatenate(h5).astype(np.float32)

    def best_of(fn: Any, repeat: int = 3) -> float:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        return best

    def torch_pass() -> None:
        token_reader.read(sentences)
        logits_of(model, h5_flat, h5_offsets, np.arange(len(read)), batch=64)

    w = numpy_arrays(model)
    lengths = np.diff(h5_offsets)
    order = np.argsort(lengths, kind="stable")

    def numpy_pass() -> np.ndarray:
        token_reader.read(sentences)
        out = np.zeros((len(read), 6), dtype=np.float32)
        for s in range(0, len(order), 64):
            idx = order[s : s + 64]
            x, mask = padded(h5_flat, h5_offsets, idx)
            out[idx] = numpy_logits(w, x.numpy(), mask.numpy())
        return out

    t_torch = best_of(torch_pass)
    t_numpy = best_of(numpy_pass)
    np_gap = float(np.abs(numpy_pass() - logits_of(model, h5_flat, h5_offsets,
                                                   np.arange(len(read)))).max())

    def token_head_pass() -> None:
        token_reader.read(sentences)
        token_reader.scores_of(vectors, tokens)

    t_token = best_of(token_head_pass)
    layer_params = sum(p.numel() for p in model.layer.parameters())
    head_params = sum(p.numel() for p in model.head.parameters())

    # 7. write
    def cell(v: float | None) -> str:
        return "—" if v is None else f"{v:.3f}"

    cols = ("toxicity", "threat", "identity_attack", "toxicity_hate_vs_counter_speech")
    srcs = list(dev_rows["token head (shipped), same run"]["toxicity_by_source"])
    held_table, held_summary = tables["heldout"]
    list_table, list_summary = tables["lists"]
    n_all = len(training) - len(stop_rows)
    described = {"opinion": "hate phrased as an opinion and its benign twins, `opinion_examples`",
                 "negated_positive": "hate as a denied positive statement, "
                                     "`negated_positive_examples`"}
    augment_note = "" if not extra else (
        f" Plus {len(extra):,} augmentation rows of design note 0040 (`--augment "
        f"{args.augment}`: " + "; ".join(f"{n:,} {s} — {described.get(s, s)}"
                                          for s, n in augmented_sources.items())
        + "), made by `scripts/heads/toxicity_data.py` from the fitting rows' own texts only "
        "and added to the fitting rows only (the early-stopping rows and the dev split are "
        "those of the run without augmentation); ToxiGen weight and class weights unchanged.")
    lines = [
        "# Experiment: fine-tuning MiniLM's last layer for toxicity (issue 19)",
        "",
        f"Written by `scripts/experiments/toxicity_finetune.py --train-share {args.train_share} "
        f"--epochs {args.epochs} --batch {args.batch} --lr-layer {args.lr_layer} --lr-head "
        f"{args.lr_head} --init {args.init} --seed {args.seed} --augment {args.augment}`; Python "
        f"{platform.python_version()}, torch {torch.__version__}, {args.threads} threads on a "
        "shared 2-core CPU (another long run was using it). An experiment, not a shipped head: "
        "nothing under `src/` changed.",
        "",
        "Model: all-MiniLM-L6-v2 with its embeddings and layers 1–5 frozen; layer 6 (a copy of "
        f"the pretrained weights, {layer_params:,} parameters, {layer_params * 2 / 1e6:.1f} MB "
        "in float16) trained together with the token head's pooling + classifier "
        f"({head_params:,} parameters; initialised "
        + ("from the shipped token head, its output-bias offsets removed" if args.init == "token"
           else "at random") + ") on the token head's training rows "
        f"({n_fit:,} of its {n_all:,}"
        f" fitting rows{'' if args.train_share >= 1 else ', a seeded subsample'}; "
        f"{len(stop_rows):,} early-stopping rows; dev split of {len(dev):,} rows untouched), "
        "same labels, class weighting and ToxiGen weight. AdamW, layer LR "
        f"{args.lr_layer:g}, head LR {args.lr_head:g}, {args.epochs} epoch(s), batch "
        f"{args.batch}; best early-stopping state kept. Output biases of `toxicity` and `threat` "
        "shifted to the shipped token head's dev false-positive rates at 0.5 "
        f"({', '.join(f'{t} {r}' for t, r in rates.items())}), as that head was."
        + augment_note,
        "",
        f"Timing: layer-5 states of {n_texts:,} texts ({len(states):,} tokens) "
        f"{t_cache / 60:.1f} min ({'read from the cache' if t_cache < 60 else 'computed'}); "
        f"training {t_train / 60:.1f} min; total run {(time.perf_counter() - t0) / 60:.1f} min. "
        f"Parity of the torch layer with the library's MiniLM pass on {len(probe)} texts (via the "
        f"float16 cache): max token gap {tok_gap:.1e}, sentence vector gap {vec_gap:.1e}.",
        "",
        "Early-stopping AUROC of `toxicity` during training: "
        + ", ".join(f"{h.get('epoch', 0)}: {h['early_stop_auroc']:.4f}" for h in history) + ".",
        "",
        "## Summary",
        "",
        f"| | token head (shipped) | {ft_name} |",
        "|---|---:|---:|",
    ]
    names = list(scorers)

    def held_stats(name: str) -> tuple[str, str]:
        summary = held_summary[names.index(name)]
        return summary.split("AUROC ")[1].split(",")[0], summary.split("lowest recall ")[1]

    under = {}
    for name in names:
        k = names.index(name)
        cells = [r.split(" | ") for r in held_table[2:]]
        flagged = [(c[0].lstrip("| "), int(c[3 + k].rstrip(" |%"))) for c in cells
                   if c[1] == "yes"]
        under[name] = [f"{f.split(' ')[0]} {v}%" for f, v in flagged if v < 50]
    lines += [
        "| held-out suite AUROC | " + " | ".join(held_stats(n)[0] for n in names) + " |",
        "| held-out hateful functionalities < 50 % at 0.5 | " + " | ".join(
            f"{len(under[n])} ({', '.join(under[n]) or '—'})" for n in names) + " |",
        "| held-out lowest recall | " + " | ".join(held_stats(n)[1] for n in names) + " |",
        "| dev `toxicity` AUROC | " + " | ".join(
            cell(dev_rows[r]["toxicity"]) for r in dev_rows) + " |",
        "| dev identity attacks vs counter-speech / negated hate | " + " | ".join(
            cell(dev_rows[r]["toxicity_hate_vs_counter_speech"]) for r in dev_rows) + " |",
        "| Davidson AUROC [95 % CI] (false-positive rate at 0.5), "
        f"{len(frame):,} tweets | " + " | ".join(
            f"{d[0]:.3f} [{d[1]:.3f}, {d[2]:.3f}] ({d[3]:.2f})" for d in davidson.values())
        + " |",
        "| design lists AUROC (lowest recall) | " + " | ".join(
            list_summary[names.index(n)].split(": ", 1)[1] for n in names) + " |",
        f"| added cost, share of the MiniLM pass ({len(read)} Davidson sentences, "
        f"{t_embed:.1f} s) | {t_token / t_embed:.1%} | {t_torch / t_embed:.1%} torch, "
        f"{t_numpy / t_embed:.1%} numpy |",
        "",
        f"Cost: the fine-tuned layer + head from the layer-5 states (spelling normaliser "
        f"included) took {t_torch * 1e3:.0f} ms in torch and {t_numpy * 1e3:.0f} ms in numpy "
        f"(numpy vs torch max logit gap {np_gap:.1e}) for {len(read)} sentences, against "
        f"{t_embed:.1f} s for the full MiniLM pass of them (`encode_with_tokens`, no cache); "
        f"the token head's added cost {t_token * 1e3:.0f} ms. Best of 3; the machine was shared.",
        "",
        "## Dev split (as `benchmarks/bench_toxicity_dev.py`)",
        "",
        "The shipped token head's row is recomputed here from the cached float16 layer-5 "
        "states through the pretrained layer 6 (so it may differ from `toxicity_dev.md` in "
        "the third decimal).",
        "",
        "| model | " + " | ".join(cols) + " | " + " | ".join(f"toxicity, {s}" for s in srcs)
        + " |",
        "|---|" + "---:|" * (len(cols) + len(srcs)),
        *(f"| {name} | " + " | ".join(cell(m[c]) for c in cols) + " | "
          + " | ".join(cell(m["toxicity_by_source"][s]) for s in srcs) + " |"
          for name, m in dev_rows.items()),
        "",
        "## Held-out HateCheck-style suite (`benchmarks/toxicity_heldout.py`), per functionality",
        "",
        "Scored as `benchmarks/bench_toxicity.py` scores the shipped heads (the `toxicity` "
        "evaluator, sentence split, max over sentences; recall at 0.5 where the list should be "
        "flagged, share left unflagged where not).",
        "",
        *held_table,
        "",
        "Over the held-out suite: " + "; ".join(held_summary) + ".",
        "",
        "## Design lists (`benchmarks/toxicity_functional.py`)",
        "",
        *list_table,
        "",
        "Over all lists: " + "; ".join(list_summary) + ".",
        "",
    ]
    from results_file import publish

    publish(args.out, lines)
    (args.cache_dir / "run.json").write_text(json.dumps(
        {"history": history, "dev": dev_rows, "bias": bias.tolist()}, default=str, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
