"""The token NLI head: decomposable attention over frozen MiniLM token embeddings.

Data: the four NLI folders (as the sentence head, :mod:`heads.nli`, with the same grouped
10 % validation premises), plus synthetic detail edits of the *training* premises' entailed
hypotheses (:func:`heads.edits.detail_edits`: a number, a name, a negation, two roles
changed: ``contradiction``; a word replaced by another of the premise: ``neutral``), since NLI
data rarely changes one detail while keeping the wording. Validation figures are on the NLI
pairs of the validation premises only (comparable with the sentence head's), and separately on
the detail edits of those premises.

Model: :mod:`assay.backends.heads.nli_tokens` (projection, soft alignment, compare, aggregate)
and a dense classifier (one hidden ReLU layer, linear output), trained end to end with torch on
CPU (seeded, Adam, early stopping on 5 % of the training premises). The weights are exported to
assay's inert head format; the validation figures are computed by the shipped numpy forward
pass (the path users run), after a parity check against torch.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.heads.nli_features import (
    SCALARS,
    lexical_fingerprint,
    premise_sentences,
    sentence_pair,
)
from assay.backends.heads.nli_tokens import (
    FEATURE_SET,
    TOKEN_SCALARS,
    TokenAligner,
    n_features,
    texts_of_pairs,
    token_pair_features,
)
from assay.backends.heads.store import Head, save_head
from assay.text.rules_probe import FINGERPRINT
from heads.common import EMBEDDER, SHIPPED, embedder, logger, stable_fraction, torch_head_arrays
from heads.edits import detail_edits
from heads.nli import LABELS, load, premise_key, split, validation_report

NAME = "nli-token"
#: Edit kinds whose edited claim contradicts the premise; the others are labelled neutral.
CONTRADICTING_EDITS = ("number", "name", "negation", "roles")
EARLY_STOP_SHARE = 0.05
#: The NLI files whose pairs were chosen or revised so that a few words decide the label
#: (counterfactually revised SNLI; TaxiNLI's selection by reasoning category): the rows that
#: ``--minimal-weight`` weighs up.
MINIMAL_EDIT_SOURCES = ("snli_counterfactual", "mnli_taxinli")
#: Detail edits made of each entailed training hypothesis, at most.
EDITS_PER_CLAIM = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project", type=int, default=128, help="projection size")
    parser.add_argument("--compare", type=int, default=128, help="compare layer size")
    parser.add_argument("--hidden", type=int, default=128, help="classifier hidden layer size")
    parser.add_argument("--epochs", type=int, default=8, help="epochs at most")
    parser.add_argument("--batch", type=int, default=64, help="pairs per batch")
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam learning rate")
    parser.add_argument("--no-edits", action="store_true", help="train on NLI pairs only")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--minimal-weight", type=float, default=1.0,
                        help="loss weight of the pairs of MINIMAL_EDIT_SOURCES and of the "
                             "detail edits (the others weigh 1)")
    parser.add_argument("--train-share", type=float, default=0.31,
                        help="share of the training premises used (grouped, chosen by a hash "
                             "of the premise; the validation premises are always kept); the "
                             "shipped head's 0.31 by default (design note 0056)")


def row_weights(rows: list[dict[str, Any]], weight: float) -> np.ndarray:
    """Loss weight of each row: ``weight`` for the pairs of :data:`MINIMAL_EDIT_SOURCES` and
    the detail edits, 1 for the others.

    Example:
        >>> row_weights([{"source": "snli_dev_test", "kind": "nli_neutral"},
        ...              {"source": "snli_dev_test", "kind": "edit_name"},
        ...              {"source": "mnli_taxinli", "kind": "nli_neutral"}], 2.0).tolist()
        [1.0, 2.0, 2.0]
    """
    return np.array([weight if r["source"] in MINIMAL_EDIT_SOURCES or r["kind"].startswith(
        "edit_") else 1.0 for r in rows], dtype=np.float32)


def rows_with_edits(rows: list[dict[str, Any]], seed: int, edits: bool) -> list[dict[str, Any]]:
    """NLI rows tagged ``nli_<label>``, then (if ``edits``) up to :data:`EDITS_PER_CLAIM` detail
    edits of each entailed one (seeded, in row order), labelled contradiction or neutral by
    kind. Written here rather than taken from the hallucination head's trainer, whose edit mix
    is that head's to change."""
    out = [{**r, "kind": f"nli_{r['label']}"} for r in rows]
    if not edits:
        return out
    rng = np.random.default_rng(seed)
    for r in rows:
        if r["label"] != "entailment":
            continue
        for kind, text in detail_edits(r["premise"], r["hypothesis"], rng, EDITS_PER_CLAIM):
            label = "contradiction" if kind in CONTRADICTING_EDITS else "neutral"
            out.append({**r, "hypothesis": text, "label": label, "kind": f"edit_{kind}"})
    return out


def training_pairs(data: Path, limit: int | None, seed: int, edits: bool, share: float
                   ) -> list[dict[str, Any]]:
    """The NLI pairs and their detail edits (:func:`rows_with_edits`), keeping the validation
    premises and a ``share`` of the others (chosen by a hash of the premise, after the edits
    are made: the same edits whatever the share)."""
    rows = rows_with_edits(load(data, limit, seed), seed, edits)
    if share >= 1.0:
        return rows
    return [r for r, held_out in zip(rows, split(rows), strict=True)
            if held_out or stable_fraction("p1" + premise_key(r["premise"])) < share]


class Pairs:
    """Token matrices (float16) and sentence scalars of every pair, read once from the cache."""

    def __init__(self, emb: Any, rows: list[dict[str, Any]]) -> None:
        premises = [r["premise"] for r in rows]
        hypotheses = [r["hypothesis"] for r in rows]
        texts = texts_of_pairs(premises, hypotheses)
        vectors, tokens = [], []
        for start in range(0, len(texts), 4096):
            v, t = emb.encode_with_tokens(texts[start : start + 4096])
            vectors.append(v)
            tokens.extend(np.asarray(m, dtype=np.float16) for m in t)
            logger.info("token matrices %d / %d", min(start + 4096, len(texts)), len(texts))
        matrix = np.concatenate(vectors).astype(np.float32)
        index = {text: i for i, text in enumerate(texts)}
        concatenated: dict[str, np.ndarray] = {}
        self.premise: list[np.ndarray] = []
        self.hypothesis: list[np.ndarray] = []
        self.scalars = np.empty((len(rows), len(SCALARS)), dtype=np.float32)
        for i, (p, h) in enumerate(zip(premises, hypotheses, strict=True)):
            if p not in concatenated:
                concatenated[p] = np.concatenate([tokens[index[s]] for s in premise_sentences(p)])
            self.premise.append(concatenated[p])
            self.hypothesis.append(tokens[index[h]])
            self.scalars[i] = sentence_pair(matrix, index, p, h)[2]
        self.y = np.array([LABELS.index(r["label"]) for r in rows])
        self.weight = np.ones(len(rows), dtype=np.float32)

    def batches(self, rows: np.ndarray, size: int, rng: np.random.Generator | None) -> Iterator[
            tuple[np.ndarray, Any]]:
        """Padded tensors of ``rows`` in batches of similar length (shuffled when ``rng``)."""
        import torch

        lengths = np.array([len(self.premise[i]) + 4 * len(self.hypothesis[i]) for i in rows])
        ordered = rows[np.argsort(lengths, kind="stable")]
        chunks = [ordered[s : s + size] for s in range(0, len(ordered), size)]
        if rng is not None:
            chunks = [chunks[int(i)] for i in rng.permutation(len(chunks))]
        for chunk in chunks:
            yield chunk, tuple(torch.from_numpy(a) for a in self._pad(chunk))

    def _pad(self, chunk: np.ndarray) -> tuple[np.ndarray, ...]:
        def padded(mats: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
            width = max(1, *(len(m) for m in mats))
            out = np.zeros((len(mats), width, mats[0].shape[1] if len(mats[0]) else 384),
                           dtype=np.float32)
            mask = np.zeros((len(mats), width), dtype=bool)
            for k, m in enumerate(mats):
                out[k, : len(m)] = m
                mask[k, : max(1, len(m))] = True  # an empty text stands as one zero token
            return out, mask

        p, pm = padded([self.premise[i] for i in chunk])
        h, hm = padded([self.hypothesis[i] for i in chunk])
        return p, pm, h, hm, self.scalars[chunk], self.y[chunk]


def build_model(args: argparse.Namespace, mean: np.ndarray, scale: np.ndarray) -> Any:
    """The torch mirror of the shipped forward pass (``TokenAligner`` + ``Head``)."""
    import torch
    from torch import nn

    class TokenNLI(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(384, args.project)
            self.cmp = nn.Linear(4 * args.project, args.compare)
            self.hidden = nn.Linear(n_features(args.compare), args.hidden)
            self.out = nn.Linear(args.hidden, len(LABELS))
            self.drop = nn.Dropout(0.1)
            self.register_buffer("mean", torch.from_numpy(mean))
            self.register_buffer("scale", torch.from_numpy(scale))

        def features(self, p: Any, pm: Any, h: Any, hm: Any, s: Any) -> Any:
            pp, hp = self.proj(p), self.proj(h)
            energy = hp @ pp.transpose(1, 2) / float(args.project) ** 0.5
            energy = energy.masked_fill(~pm[:, None, :], float("-inf"))
            aligned = torch.softmax(energy, dim=-1) @ pp
            g = torch.relu(self.cmp(torch.cat([hp, aligned, hp - aligned, hp * aligned], -1)))
            g = g * hm[..., None]
            count = hm.sum(1, keepdim=True).clamp(min=1)
            raw = (h @ p.transpose(1, 2)).masked_fill(~pm[:, None, :], float("-inf"))
            best = raw.max(-1).values
            best_min = best.masked_fill(~hm, float("inf")).min(1).values
            best_mean = (best.masked_fill(~hm, 0.0)).sum(1) / count[:, 0]
            return torch.cat([g.sum(1) / count, g.max(1).values, best_min[:, None],
                              best_mean[:, None], s], -1)

        def forward(self, p: Any, pm: Any, h: Any, hm: Any, s: Any) -> Any:
            z = (self.features(p, pm, h, hm, s) - self.mean) / self.scale
            return self.out(self.drop(torch.relu(self.hidden(self.drop(z)))))

    return TokenNLI()


def scalar_standardisation(pairs: Pairs, rows: np.ndarray, compare: int) -> tuple[
        np.ndarray, np.ndarray]:
    """Mean and scale of the feature row: 0 / 1 for the learnt blocks (ReLU outputs), measured
    on the training rows for the token and sentence scalars (they do not depend on training)."""
    best = np.empty((len(rows), 2), dtype=np.float32)
    for k, i in enumerate(rows):
        h = pairs.hypothesis[i].astype(np.float32)
        p = pairs.premise[i].astype(np.float32)
        b = (h @ p.T).max(axis=1) if len(h) and len(p) else np.zeros(1, np.float32)
        best[k] = b.min(), b.mean()
    fixed = np.hstack([best, pairs.scalars[rows]])
    mean = np.concatenate([np.zeros(2 * compare), fixed.mean(0)]).astype(np.float32)
    std = fixed.std(0)
    std[std < 1e-6] = 1.0
    scale = np.concatenate([np.ones(2 * compare), std]).astype(np.float32)
    return mean, scale


def predict(model: Any, pairs: Pairs, rows: np.ndarray) -> np.ndarray:
    """Torch logits of ``rows``, in the order of ``rows``."""
    import torch

    model.eval()
    out = np.empty((len(rows), len(LABELS)), dtype=np.float64)
    where = {int(r): k for k, r in enumerate(rows)}
    with torch.no_grad():
        for chunk, (p, pm, h, hm, s, _) in pairs.batches(rows, 256, None):
            logits = model(p, pm, h, hm, s).numpy()
            out[[where[int(r)] for r in chunk]] = logits
    return out


def fit(args: argparse.Namespace, pairs: Pairs, train_rows: np.ndarray, stop_rows: np.ndarray,
        mean: np.ndarray, scale: np.ndarray) -> tuple[Any, list[dict[str, float]]]:
    """Train with Adam; keep the epoch with the best early-stopping accuracy."""
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model = build_model(args, mean, scale)
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    best_state, best_accuracy, history = None, -1.0, []
    for epoch in range(args.epochs):
        model.train()
        started, total = time.perf_counter(), 0.0
        for chunk, (p, pm, h, hm, s, y) in pairs.batches(train_rows, args.batch, rng):
            optimiser.zero_grad()
            logits = model(p, pm, h, hm, s)
            if args.minimal_weight == 1.0:  # the plain mean: the same bytes as before weights
                loss = torch.nn.functional.cross_entropy(logits, y)
            else:
                w = torch.from_numpy(pairs.weight[chunk])
                loss = (torch.nn.functional.cross_entropy(logits, y, reduction="none")
                        * w).sum() / w.sum()
            loss.backward()
            optimiser.step()
            total += loss.item() * len(y)
        accuracy = float((predict(model, pairs, stop_rows).argmax(1) == pairs.y[stop_rows]).mean())
        history.append({"epoch": epoch + 1, "loss": round(total / len(train_rows), 4),
                        "early_stop_accuracy": round(accuracy, 4),
                        "seconds": round(time.perf_counter() - started, 1)})
        logger.info("epoch %s", history[-1])
        if accuracy > best_accuracy:
            best_accuracy = accuracy
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        elif epoch - int(np.argmax([e["early_stop_accuracy"] for e in history])) >= 2:
            break
    assert best_state is not None
    model.load_state_dict(best_state)
    return model, history


def train(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    rows = training_pairs(args.data, args.limit, args.seed, not args.no_edits, args.train_share)
    nli_rows = [r for r in rows if not r["kind"].startswith("edit_")]
    held_nli = split(nli_rows)
    held = split(rows)
    is_edit = np.array([r["kind"].startswith("edit_") for r in rows])
    logger.info("pairs: %d (%d NLI, %d validation NLI, %d edits)", len(rows), len(nli_rows),
                int(held_nli.sum()), int(is_edit.sum()))
    emb = embedder(args.cache_dir)
    pairs = Pairs(emb, rows)
    pairs.weight = row_weights(rows, args.minimal_weight)
    embedded = time.perf_counter() - started
    training = np.flatnonzero(~held)
    stop = np.array([stable_fraction("stop:" + premise_key(rows[i]["premise"]))
                     < EARLY_STOP_SHARE for i in training])
    if not stop.any() or stop.all():
        raise SystemExit(f"nli-token: {int(stop.sum())} of {len(stop)} training pairs fall to "
                         "early stopping; raise --limit or --train-share")
    mean, scale = scalar_standardisation(pairs, training[~stop], args.compare)
    model, history = fit(args, pairs, training[~stop], training[stop], mean, scale)
    extra, layers = torch_head_arrays(model, ("proj", "cmp"), ("hidden", "out"))
    head = Head(NAME, LABELS, FEATURE_SET, layers, mean, scale, extra=extra)
    validation = np.flatnonzero(held & ~is_edit)
    edits = np.flatnonzero(held & is_edit)
    aligner = TokenAligner.from_arrays(extra)
    x = token_pair_features(emb, aligner, [rows[i]["premise"] for i in validation],
                            [rows[i]["hypothesis"] for i in validation])
    logits = head.logits(x)
    gap = float(np.abs(logits - predict(model, pairs, validation)).max())
    if gap > 1e-3:
        raise SystemExit(f"numpy and torch disagree on the validation logits by {gap:.2g}")
    metrics: dict[str, Any] = {
        **validation_report(logits, pairs.y[validation],
                            [rows[i]["source"] for i in validation]),
        "numpy_torch_max_logit_gap": round(gap, 6),
    }
    if len(edits):
        metrics["validation_edits"] = edit_metrics(head, aligner, emb, rows, edits, validation,
                                                   logits)
    info = {
        "seed": args.seed,
        "limit_per_file": args.limit,
        "train_share": args.train_share,
        "minimal_weight": args.minimal_weight,
        "max_epochs": args.epochs,
        "threads": args.threads,
        "project": args.project,
        "compare": args.compare,
        "hidden": [args.hidden],
        "n_features": n_features(args.compare),
        "token_scalars": list(TOKEN_SCALARS),
        "scalar_features": list(SCALARS),
        FINGERPRINT: lexical_fingerprint(),
        "edits": not args.no_edits,
        "embedder": f"{EMBEDDER}, token embeddings (L2-normalised, float16)",
        "rows": {s: int(sum(r["source"] == s and not r["kind"].startswith("edit_")
                            for r in rows)) for s in sorted({r["source"] for r in rows})},
        "edit_rows": {k: int(sum(r["kind"] == k for r in rows))
                      for k in sorted({r["kind"] for r in rows if r["kind"].startswith("edit_")})},
        "train_rows": int(len(training) - stop.sum()),
        "early_stop_rows": int(stop.sum()),
        "validation_rows": len(validation),
        "history": history,
        "metrics": metrics,
        "seconds": {"embedding": round(embedded, 1),
                    "total": round(time.perf_counter() - started, 1)},
    }
    out = args.out or SHIPPED / NAME
    digest = save_head(out, name=NAME, labels=LABELS, features=FEATURE_SET, layers=layers,
                       mean=mean, scale=scale, info=info, extra=extra)
    from heads.nli_token_card import model_card

    (out / "MODEL_CARD.md").write_text(model_card(info, digest), encoding="utf-8")
    logger.info("wrote %s (sha256 %s): %s", out, digest[:16], metrics["validation"])
    return 0


def edit_metrics(head: Head, aligner: TokenAligner, emb: Any, rows: list[dict[str, Any]],
                 edits: np.ndarray, validation: np.ndarray, logits: np.ndarray) -> dict[str, Any]:
    """How the held-out premises' detail edits are told from their entailed originals: AUROC of
    the entailment margin, per edit kind."""
    from sklearn.metrics import roc_auc_score

    x = token_pair_features(emb, aligner, [rows[i]["premise"] for i in edits],
                            [rows[i]["hypothesis"] for i in edits])
    edit_logits = head.logits(x)
    entailed = np.array([rows[i]["label"] == "entailment" for i in validation])
    margin_entailed = logits[entailed, 0] - logits[entailed, 1:].max(1)
    margin_edits = edit_logits[:, 0] - edit_logits[:, 1:].max(1)
    kinds = np.array([rows[i]["kind"] for i in edits])
    out: dict[str, Any] = {"n": len(edits)}
    for kind in ["all", *sorted(set(kinds))]:
        chosen = margin_edits if kind == "all" else margin_edits[kinds == kind]
        scores = np.concatenate([margin_entailed, chosen])
        labels = np.concatenate([np.ones(len(margin_entailed)), np.zeros(len(chosen))])
        out[kind] = round(float(roc_auc_score(labels, scores)), 4)
    return out
