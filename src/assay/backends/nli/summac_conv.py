"""SummaC-Conv (Laban et al., 2022) on top of any NLI model: histogram → 1-d conv → logit.

For each summary sentence, the entailment probabilities against every document sentence are
binned into a histogram; a linear layer (the "convolution" over the histogram, ``mlp``) gives
one value per summary sentence; their mean, repeated three times, goes through
``layer_final`` (3 → 2) and the softmax probability of class 1 is the score. At most
``n_rows = 10`` summary sentences are used, as in the reference implementation.

The trained weights (e.g. ``summac_conv_vitc_sent_perc_e.bin`` from the SummaC releases) are a
PyTorch state dict with ``mlp.weight``, ``mlp.bias``, ``layer_final.weight`` and
``layer_final.bias``; a ``.npz`` file with the same keys is also accepted (no torch needed).
The SummaC reference checkpoints were trained with a specific NLI model (ViTC); using another NLI
model with them changes the meaning of the score.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from assay.errors import BackendError, require

#: Bin edges of the reference "percentile" setting (23 bins) used by the released checkpoints.
PERCENTILE_BINS = (
    0.0, 0.01, 0.02, 0.03, 0.04, 0.07, 0.13, 0.37, 0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.955,
    0.96, 0.965, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995, 1.0,
)
N_ROWS = 10
_KEYS = ("mlp.weight", "mlp.bias", "layer_final.weight", "layer_final.bias")


def bin_edges(bins: str) -> np.ndarray:
    """Edges for ``"percentile"`` or ``"evenN"`` (N equal bins on [0, 1]).

    Example:
        >>> bin_edges("even4").tolist()
        [0.0, 0.25, 0.5, 0.75, 1.0]
        >>> len(bin_edges("percentile")) - 1
        23
    """
    if bins == "percentile":
        return np.array(PERCENTILE_BINS)
    if bins.startswith("even") and bins[4:].isdigit() and int(bins[4:]) > 0:
        return np.linspace(0.0, 1.0, int(bins[4:]) + 1)
    raise BackendError(f"unknown SummaC-Conv bins {bins!r}: use 'percentile' or 'evenN'")


@dataclass(frozen=True)
class ConvWeights:
    """The four trained tensors of SummaC-Conv, as float64 arrays."""

    mlp_weight: np.ndarray  # (1, n_bins)
    mlp_bias: np.ndarray  # (1,)
    final_weight: np.ndarray  # (2, 3)
    final_bias: np.ndarray  # (2,)


@lru_cache(maxsize=8)
def load_weights(path: str) -> ConvWeights:
    """Read a SummaC-Conv state dict (``.bin``/``.pt`` via torch, or ``.npz``)."""
    file = Path(path)
    if not file.is_file():
        raise BackendError(
            f"SummaC-Conv weights {path!r} not found: download summac_conv_vitc_sent_perc_e.bin "
            "from the SummaC releases (github.com/tingofurro/summac) on a machine with network "
            "access and pass its path"
        )
    if file.suffix == ".npz":
        with np.load(file) as data:
            state = {k: np.asarray(data[k], dtype=np.float64) for k in data.files}
    else:
        require("torch", extra="nli", package="torch==2.13.0")
        import torch

        raw = torch.load(file, map_location="cpu", weights_only=True)
        state = {k: v.double().numpy() for k, v in raw.items()}
    missing = [k for k in _KEYS if k not in state]
    if missing:
        raise BackendError(f"{path}: not a SummaC-Conv state dict (missing {missing})")
    weights = ConvWeights(*(state[k] for k in _KEYS))
    if weights.mlp_weight.shape[0] != 1 or weights.final_weight.shape != (2, 3):
        raise BackendError(f"{path}: unexpected SummaC-Conv tensor shapes")
    return weights


def conv_score(entailment: np.ndarray, weights: ConvWeights, edges: np.ndarray) -> float:
    """SummaC-Conv score of one (document, summary) pair.

    Args:
        entailment: ``(n_document_sentences, n_summary_sentences)`` P(entailment) matrix.
        weights: the trained tensors.
        edges: histogram bin edges (their count − 1 must match ``mlp`` inputs).

    Example:
        >>> w = ConvWeights(np.ones((1, 2)), np.zeros(1), np.array([[0, 0, 0], [1, 0, 0.0]]),
        ...                 np.zeros(2))
        >>> round(conv_score(np.array([[0.9], [0.8]]), w, bin_edges("even2")), 4)
        0.8808
    """
    n_bins = len(edges) - 1
    if weights.mlp_weight.shape[1] != n_bins:
        raise BackendError(
            f"the SummaC-Conv weights expect {weights.mlp_weight.shape[1]} histogram bins but the "
            f"bins setting gives {n_bins}; use the bins the checkpoint was trained with"
        )
    columns = entailment.shape[1]
    rows = np.zeros((N_ROWS, n_bins))
    for j in range(min(columns, N_ROWS)):
        rows[j] = np.histogram(entailment[:, j], range=(0.0, 1.0), bins=edges)[0]
    used = int((rows.sum(axis=1) != 0).sum())
    if used == 0:
        features = np.zeros(3)
    else:
        per_row = rows @ weights.mlp_weight[0] + weights.mlp_bias[0]
        features = np.full(3, per_row[:used].mean())
    logits = weights.final_weight @ features + weights.final_bias
    logits = logits - logits.max()
    probs = np.exp(logits) / np.exp(logits).sum()
    return float(probs[1])
