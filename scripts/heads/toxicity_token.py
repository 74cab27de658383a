"""The token toxicity head: attention pooling over frozen MiniLM token vectors (issue 19).

``python scripts/train_heads.py --head toxicity-token``. Same data, targets and output as the
sentence head (:mod:`heads.toxicity`: ``toxicity`` with the data's class prior; ``threat``
fitted against every labelled text and scored on its own; the other subtypes on toxic texts,
class-balanced, scored times P(toxic); the counter-speech and negation hard negatives for
``toxicity`` only), but the features are :mod:`assay.backends.heads.token_pool`'s (sentence
vector, max- and attention-pooled projected tokens) and the classifier has one hidden layer,
all trained end to end with torch on CPU (seeded, Adam, masked binary cross-entropy per
target; early stopping on 5 % of the training rows). ToxiGen rows (implicit hate and benign
statements about groups, the sources closest to identity attacks without profanity) weigh
:data:`TOXIGEN_WEIGHT` times as much.

The dev split (:func:`dev_split`: 15 % of the labelled texts by a hash of the text, and the
hard negatives made from the dev texts only, so no dev sentence is seen quoted in training)
is held out of the fit; its figures, and those of the sentence head's recipe fitted on the
same training rows, are in the model card: that is where the two were compared. The weights
are exported to assay's inert head format; the dev figures are computed by the shipped numpy
forward pass, after a parity check against torch.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from assay.backends.embed import minilm
from assay.backends.heads.store import Head
from assay.backends.heads.token_pool import FEATURE_SET, TokenPooler
from heads.common import (
    EMBEDDER,
    SHIPPED,
    embedder,
    logger,
    stable_fraction,
    torch_head_arrays,
    write_head,
)
from heads.toxicity import DIRECT, LICENCES, auroc, fit_logistic, labels_of
from heads.toxicity_data import (
    COUNTER_SPEECH,
    OPINION,
    TOXICITY_TARGETS,
    Example,
    counter_speech_examples,
    deobfuscation_lexicon,
    negated_positive_examples,
    opinion_examples,
    toxicity_examples,
)

NAME = "toxicity-token"
DEV_SHARE = 0.15
EARLY_STOP_SHARE = 0.05
TOXIGEN_WEIGHT = 3.0
#: Targets whose 0.5 is moved to the sentence recipe's dev false-positive rate (the gated ones).
MATCHED = ("toxicity", "threat")
#: Sources whose dev rows are reported one by one (both classes within the source), when
#: present (the opinion rows only with ``--augment``).
REPORTED = ("convabuse", "sbic", "stormfront", "toxigen", "wikipedia", OPINION)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of this head."""
    parser.add_argument("--project", type=int, default=128, help="projected token units")
    parser.add_argument("--queries", type=int, default=4, help="attention queries")
    parser.add_argument("--hidden", type=int, default=128, help="classifier hidden layer size")
    parser.add_argument("--epochs", type=int, default=4, help="epochs at most")
    parser.add_argument("--batch", type=int, default=128, help="texts per batch")
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam learning rate")
    parser.add_argument("--toxigen-weight", type=float, default=TOXIGEN_WEIGHT,
                        help="weight of a ToxiGen row (others weigh 1)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--no-match-fpr", action="store_false", dest="match_fpr",
                        help="keep the fitted output biases (see matched_offsets)")
    parser.add_argument("--augment", action="store_true",
                        help="add hate phrased as an opinion or as a denied positive statement, "
                             "each side of the split from its own texts (design note 0040)")


def dev_split(examples: Sequence[Example], *, augment: bool = False
              ) -> tuple[list[Example], list[Example]]:
    """``(train, dev)``: :data:`DEV_SHARE` of the labelled texts by a hash of the text, each
    side with its own hard negatives (made from its own hateful sentences, in proportion) and,
    with ``augment``, its own hate phrased as an opinion or as a denied positive statement
    (:func:`heads.toxicity_data.opinion_examples`, :func:`~heads.toxicity_data.
    negated_positive_examples`)."""
    dev = [stable_fraction("dev:" + e.text) < DEV_SHARE for e in examples]
    train_rows = [e for e, d in zip(examples, dev, strict=True) if not d]
    dev_rows = [e for e, d in zip(examples, dev, strict=True) if d]

    def share(n: int) -> int:
        return round(n * DEV_SHARE)

    def augmented(rows: list[Example]) -> list[Example]:
        return [*opinion_examples(rows), *negated_positive_examples(rows)] if augment else []

    return ([*train_rows, *counter_speech_examples(train_rows), *augmented(train_rows)],
            [*dev_rows, *counter_speech_examples(dev_rows, quoting=share(1600),
                                                 reporting=share(1200), negated=share(600)),
             *augmented(dev_rows)])


def target_matrix(examples: Sequence[Example]) -> np.ndarray:
    """``(n, targets)`` labels in {1, 0, -1 (not labelled)}, as :func:`heads.toxicity.fit_targets`
    defines them: a :data:`DIRECT` target against every text labelled toxic or not, counter-
    speech left out of it."""
    y = np.stack([labels_of(examples, t) for t in TOXICITY_TARGETS], axis=1)
    counter = np.array([e.source == COUNTER_SPEECH for e in examples])
    for target in DIRECT:
        k = TOXICITY_TARGETS.index(target)
        y[:, k] = np.where(y[:, k] == 1, 1, np.where(y[:, 0] >= 0, 0, -1))
        y[counter, k] = -1
    return y


class Texts:
    """Sentence vectors and float16 token matrices of the examples, read once from the cache."""

    def __init__(self, emb: Any, examples: Sequence[Example]) -> None:
        texts = list(dict.fromkeys(e.text for e in examples))
        vectors: list[np.ndarray] = []
        tokens: list[np.ndarray] = []
        for start in range(0, len(texts), 4096):
            v, t = emb.encode_with_tokens(texts[start : start + 4096])
            vectors.append(np.asarray(v, dtype=np.float32))
            tokens.extend(np.asarray(m, dtype=np.float16) for m in t)
            logger.info("token matrices %d / %d", min(start + 4096, len(texts)), len(texts))
        index = {text: i for i, text in enumerate(texts)}
        rows = [index[e.text] for e in examples]
        self.vectors = np.concatenate(vectors)[rows]
        self.tokens = [tokens[i] for i in rows]

    def batches(self, rows: np.ndarray, size: int, rng: np.random.Generator | None
                ) -> Iterator[tuple[np.ndarray, tuple[Any, Any, Any]]]:
        """Padded ``(tokens, mask, vectors)`` tensors of ``rows`` in batches of similar length
        (batch order shuffled when ``rng``)."""
        import torch

        ordered = rows[np.argsort([len(self.tokens[i]) for i in rows], kind="stable")]
        chunks = [ordered[s : s + size] for s in range(0, len(ordered), size)]
        if rng is not None:
            chunks = [chunks[int(i)] for i in rng.permutation(len(chunks))]
        for chunk in chunks:
            width = max(1, *(len(self.tokens[i]) for i in chunk))
            x = np.zeros((len(chunk), width, self.vectors.shape[1]), dtype=np.float32)
            mask = np.zeros((len(chunk), width), dtype=bool)
            for k, i in enumerate(chunk):
                x[k, : len(self.tokens[i])] = self.tokens[i]
                mask[k, : max(1, len(self.tokens[i]))] = True  # no tokens: one zero token
            yield chunk, (torch.from_numpy(x), torch.from_numpy(mask),
                          torch.from_numpy(self.vectors[chunk]))


def build_model(args: argparse.Namespace, dim: int) -> Any:
    """The torch mirror of the shipped forward pass (``TokenPooler`` + ``Head``)."""
    import torch
    from torch import nn

    class TokenToxicity(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(dim, args.project)
            self.query = nn.Linear(args.project, args.queries)
            self.hidden = nn.Linear(dim + args.project * (1 + args.queries), args.hidden)
            self.out = nn.Linear(args.hidden, len(TOXICITY_TARGETS))
            self.drop = nn.Dropout(0.1)

        def forward(self, x: Any, mask: Any, vectors: Any) -> Any:
            h = torch.relu(self.proj(x)) * mask[..., None]  # >= 0, so padding never wins max
            weights = torch.softmax(self.query(h).masked_fill(~mask[..., None], float("-inf")),
                                    dim=1)
            pooled = torch.einsum("btk,btp->bkp", weights, h).flatten(1)
            row = torch.cat([vectors, h.max(1).values, pooled], -1)
            return self.out(self.drop(torch.relu(self.hidden(self.drop(row)))))

    return TokenToxicity()


def loss_weights(y: np.ndarray, examples: Sequence[Example], toxigen: float) -> tuple[
        np.ndarray, np.ndarray]:
    """Per-row weights (ToxiGen up) and per-target positive weights (1 for ``toxicity``, fitted
    with the data's prior; negatives / positives for the class-balanced others)."""
    rows = np.array([toxigen if e.source == "toxigen" else 1.0 for e in examples],
                    dtype=np.float32)
    positive = np.ones(y.shape[1], dtype=np.float32)
    for k in range(1, y.shape[1]):
        positive[k] = (y[:, k] == 0).sum() / max(1, (y[:, k] == 1).sum())
    return rows, positive


def predict(model: Any, texts: Texts, rows: np.ndarray) -> np.ndarray:
    """Torch logits of ``rows``, in the order of ``rows``."""
    import torch

    model.eval()
    out = np.empty((len(rows), len(TOXICITY_TARGETS)), dtype=np.float64)
    where = {int(r): k for k, r in enumerate(rows)}
    with torch.no_grad():
        for chunk, batch in texts.batches(rows, 512, None):
            out[[where[int(r)] for r in chunk]] = model(*batch).numpy()
    return out


def fit(args: argparse.Namespace, texts: Texts, y: np.ndarray, row_weight: np.ndarray,
        positive: np.ndarray, train_rows: np.ndarray, stop_rows: np.ndarray
        ) -> tuple[Any, list[dict[str, float]]]:
    """Adam on the masked, weighted binary cross-entropy of every target; keep the epoch with
    the best early-stopping AUROC of ``toxicity``."""
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    model = build_model(args, texts.vectors.shape[1])
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    rng = np.random.default_rng(args.seed)
    pos_weight = torch.from_numpy(positive)
    stop_rows = stop_rows[y[stop_rows, 0] >= 0]
    best_state, best, history = None, -1.0, []
    for epoch in range(args.epochs):
        model.train()
        started, total = time.perf_counter(), 0.0
        for chunk, batch in texts.batches(train_rows, args.batch, rng):
            target = torch.from_numpy(y[chunk].astype(np.float32))
            weight = (target >= 0).float() * torch.from_numpy(row_weight[chunk])[:, None]
            optimiser.zero_grad()
            losses = torch.nn.functional.binary_cross_entropy_with_logits(
                model(*batch), target.clamp(min=0), pos_weight=pos_weight, reduction="none")
            loss = (losses * weight).sum() / weight[:, 0].sum().clamp(min=1)
            loss.backward()
            optimiser.step()
            total += float(loss.item()) * len(chunk)
        stop = auroc(y[stop_rows, 0], predict(model, texts, stop_rows)[:, 0]) or 0.0
        history.append({"epoch": epoch + 1, "loss": round(total / len(train_rows), 4),
                        "early_stop_auroc": stop,
                        "seconds": round(time.perf_counter() - started, 1)})
        logger.info("epoch %s", history[-1])
        if stop > best:
            best, best_state = stop, {k: v.clone() for k, v in model.state_dict().items()}
        elif epoch - int(np.argmax([e["early_stop_auroc"] for e in history])) >= 2:
            break
    assert best_state is not None
    model.load_state_dict(best_state)
    return model, history


def dev_metrics(logits: np.ndarray, y: np.ndarray, sources: np.ndarray) -> dict[str, Any]:
    """Dev AUROC per target, of ``toxicity`` per source, and of ``toxicity`` on the identity
    attacks against the counter-speech made from other dev sentences (the hard negatives)."""
    out: dict[str, Any] = {}
    for k, target in enumerate(TOXICITY_TARGETS):
        keep = y[:, k] >= 0
        out[target] = auroc(y[keep, k], logits[keep, k])
    labelled = y[:, 0] >= 0
    present = set(sources.tolist())
    out["toxicity_by_source"] = {
        s: auroc(y[labelled & (sources == s), 0], logits[labelled & (sources == s), 0])
        for s in REPORTED if s in present}
    attack = (y[:, TOXICITY_TARGETS.index("identity_attack")] == 1) & (sources != "civil_comments")
    hard = attack | (sources == COUNTER_SPEECH)
    out["toxicity_hate_vs_counter_speech"] = auroc(y[hard, 0], logits[hard, 0])
    return out


def matched_offsets(logits: np.ndarray, baseline: np.ndarray, y: np.ndarray
                    ) -> dict[str, float]:
    """Per :data:`MATCHED` target, the shift of its output bias that gives the token head the
    sentence head recipe's false-positive rate at 0.5 on the dev rows (the token head, fitted
    with more capacity, is more conservative at 0.5 on the same data; at the same false-positive
    rate a head that ranks better flags more). Chosen on the dev split only."""
    out = {}
    for target in MATCHED:
        k = TOXICITY_TARGETS.index(target)
        negative = y[:, k] == 0
        rate = float((baseline[negative, k] >= 0).mean())
        out[target] = -float(np.quantile(logits[negative, k], 1.0 - rate))
    return out


def sentence_baseline(args: argparse.Namespace, texts: Texts, y: np.ndarray,
                      train_rows: np.ndarray, dev_rows: np.ndarray) -> np.ndarray:
    """Dev logits of the sentence head's recipe (:func:`heads.toxicity.fit_targets`: one
    standardised logistic regression per target, C = 0.01) fitted on the same training rows."""
    x = texts.vectors
    mean, scale = x[train_rows].mean(0), x[train_rows].std(0) + 1e-6
    z = (x - mean) / scale
    out = np.zeros((len(dev_rows), y.shape[1]))
    for k in range(y.shape[1]):
        rows = train_rows[y[train_rows, k] >= 0]
        w, b = fit_logistic(z[rows], y[rows, k], 0.01, args.seed, balanced=k > 0)
        out[:, k] = z[dev_rows] @ w + b
    return out


def train(args: argparse.Namespace) -> int:
    """Embed (tokens kept), fit on the training split, measure on the dev split, write the
    ``toxicity-token`` head folder."""
    from heads.toxicity_token_card import toxicity_token_card

    started = time.perf_counter()
    examples = toxicity_examples(args.data, limit=args.limit, seed=args.seed)
    vocabulary = set((minilm.model_dir() / "vocab.txt").read_text(encoding="utf-8").split())
    lexicon = deobfuscation_lexicon(examples, vocabulary)  # as the sentence head's
    train_examples, dev_examples = dev_split(examples, augment=args.augment)
    everything = [*train_examples, *dev_examples]
    texts = Texts(embedder(args.cache_dir), everything)
    embedded = time.perf_counter() - started
    y = target_matrix(everything)
    row_weight, positive = loss_weights(y, everything, args.toxigen_weight)
    training = np.arange(len(train_examples))
    dev = np.arange(len(train_examples), len(everything))
    stop = np.array([stable_fraction("stop:" + everything[i].text) < EARLY_STOP_SHARE
                     for i in training])
    model, history = fit(args, texts, y, row_weight, positive, training[~stop], training[stop])
    extra, layers = torch_head_arrays(model, ("proj", "query"), ("hidden", "out"))
    dim = texts.vectors.shape[1]
    pooler = TokenPooler.from_arrays(extra)
    n_inputs = pooler.n_features(dim)
    head = Head(NAME, TOXICITY_TARGETS, FEATURE_SET, layers, np.zeros(n_inputs, np.float32),
                np.ones(n_inputs, np.float32), extra=extra)
    logits = head.logits(pooler.features(texts.vectors[dev], [texts.tokens[i] for i in dev]))
    gap = float(np.abs(logits - predict(model, texts, dev)).max())
    if gap > 1e-3:
        raise SystemExit(f"numpy and torch disagree on the dev logits by {gap:.2g}")
    sources = np.array([e.source for e in everything])
    baseline = sentence_baseline(args, texts, y, training, dev)
    offsets = matched_offsets(logits, baseline, y[dev]) if args.match_fpr else {}
    for target, offset in offsets.items():
        layers[-1][1][TOXICITY_TARGETS.index(target)] += offset
        logits[:, TOXICITY_TARGETS.index(target)] += offset
    metrics = {"dev": dev_metrics(logits, y[dev], sources[dev]),
               "dev_sentence_head_recipe": dev_metrics(baseline, y[dev], sources[dev]),
               "dev_false_positive_rate": {
                   t: round(float((logits[y[dev, k] == 0, k] >= 0).mean()), 4)
                   for k, t in enumerate(TOXICITY_TARGETS) if t in MATCHED},
               "bias_offsets": {t: round(float(v), 4) for t, v in offsets.items()},
               "numpy_torch_max_logit_gap": round(gap, 6)}
    logger.info("dev: %s", metrics)
    info = {
        "output": "subtypes", "direct": list(DIRECT), "seed": args.seed, "limit": args.limit,
        "project": args.project, "queries": args.queries, "hidden": [args.hidden],
        "n_features": n_inputs, "toxigen_weight": args.toxigen_weight,
        "max_epochs": args.epochs, "threads": args.threads, "augment": args.augment,
        "embedder": f"{EMBEDDER}, token embeddings (L2-normalised, float16)",
        "rows": {s: int((sources[training] == s).sum()) for s in sorted(set(sources))},
        "dev_rows": {s: int((sources[dev] == s).sum()) for s in sorted(set(sources))},
        "early_stop_rows": int(stop.sum()), "history": history, "metrics": metrics,
        "seconds": {"embedding": round(embedded, 1),
                    "total": round(time.perf_counter() - started, 1)},
    }
    out = args.out or SHIPPED / NAME
    data = {"deobfuscate": lexicon}
    write_head(out, head, info,
               lambda digest: toxicity_token_card({**info, "data": data}, digest, LICENCES), data)
    return 0
