"""The offline default NLI model: assay's shipped NLI head over all-MiniLM-L6-v2 vectors.

No pretrained NLI cross-encoder can be installed offline, so assay trains a small head
(``scripts/train_heads.py --head nli``) on frozen MiniLM sentence-pair features
(:mod:`assay.backends.heads.nli_features`) and ships it with a sha256 and a model card
(``src/assay/backends/heads/shipped/nli/MODEL_CARD.md``). It is far weaker than a cross-encoder
(see the model card) but answers every pair, offline, in a fraction of the embedding time.

The head's last layer is linear, so the HCAT distance ``z_e / ‖w_e‖`` it reports is exactly the
signed distance of the pair's last hidden vector to the entailment decision hyperplane.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, CachedEmbedder, Embedder, get_embedder
from assay.backends.heads.nli_features import FEATURE_SET, pair_features, texts_of_pairs
from assay.backends.heads.store import Head, load_head
from assay.backends.nli.base import ENTAILMENT, NLIScores, softmax
from assay.errors import BackendError
from assay.params import check

_LOCK = threading.Lock()


class HeadNLI:
    """NLI by the shipped MiniLM head (or a head folder trained by ``scripts/train_heads.py``).

    Args:
        head: shipped head name or a head folder.
        embedder: the embedder spec or instance whose vectors the head was trained on (the
            default shares the run's cached, prefetched MiniLM vectors).

    Example:
        >>> nli = HeadNLI()
        >>> scores = nli.predict(["The fee is 12 euros a month."], ["The fee is 12 euros."])
        >>> scores.labels
        ('entailment', 'neutral', 'contradiction')
    """

    def __init__(self, head: str = "nli", *, embedder: str | Embedder = DEFAULT_SPEC) -> None:
        check(isinstance(head, str) and bool(head.strip()), "head", "HeadNLI",
              "a shipped head name or a head folder", head)
        self.head = head
        self.embedder = embedder
        self._head: Head | None = None

    def load(self) -> Head:
        """The verified head (loaded once)."""
        if self._head is None:
            with _LOCK:
                if self._head is None:
                    loaded = load_head(self.head)
                    if loaded.features != FEATURE_SET or ENTAILMENT not in loaded.labels:
                        raise BackendError(
                            f"head {self.head!r} expects features {loaded.features!r} and labels "
                            f"{list(loaded.labels)}; HeadNLI needs {FEATURE_SET!r} with an "
                            "'entailment' label"
                        )
                    self._head = loaded
        return self._head

    def resolved_embedder(self) -> CachedEmbedder:
        """The process's shared embedder for :attr:`embedder`, looked up on every call (a dict
        look-up) rather than held: a held one goes stale when the shared embedders are reset
        (``clear_loaded``, a new cache directory), and the engine's prefetch would then fill a
        different embedder than the one the head reads."""
        return get_embedder(self.embedder)

    @property
    def model_id(self) -> str:
        """The head's identity with its weights digest (and the embedder's, when not MiniLM)."""
        return self.load().model_id

    def texts_to_encode(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[str]:
        """The texts :meth:`predict` embeds for these pairs (for the engine's prefetch)."""
        return texts_of_pairs(premises, hypotheses)

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> NLIScores:
        """Scores of each ``(premises[i], hypotheses[i])`` pair; never truncated."""
        check(len(premises) == len(hypotheses), "hypotheses", "HeadNLI.predict",
              f"as many as the premises ({len(premises)})", len(hypotheses))
        head = self.load()
        features = pair_features(self.resolved_embedder(), premises, hypotheses)
        logits = head.logits(features)
        distance = logits[:, head.labels.index(ENTAILMENT)] / head.row_norm(ENTAILMENT)
        return NLIScores(head.labels, logits, softmax(logits), distance,
                         np.zeros(len(premises), dtype=bool))

    def __repr__(self) -> str:
        return f"HeadNLI({self.head!r})"
