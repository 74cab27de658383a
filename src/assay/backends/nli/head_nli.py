"""The offline NLI models: assay's shipped NLI heads over all-MiniLM-L6-v2 vectors.

No pretrained NLI cross-encoder can be installed offline, so assay trains small heads on frozen
MiniLM features and ships them with a sha256 and a model card
(``src/assay/backends/heads/shipped/<name>/MODEL_CARD.md``):

- ``nli`` (``scripts/train_heads.py --head nli``) reads sentence-pair features
  (:mod:`assay.backends.heads.nli_features`);
- ``nli-token`` (``--head nli-token``) soft-aligns the hypothesis' *token* vectors to the
  premise's (:mod:`assay.backends.heads.nli_tokens`), so it sees a one-word detail edit that a
  sentence vector barely registers. It reads the token matrices of the same MiniLM pass as the
  sentence vectors (kept in the embedding cache).

Both are far weaker than a cross-encoder (see the model cards) but answer every pair, offline,
in a fraction of the embedding time. :class:`HeadNLI` picks the computation from the head's
feature set.

The head's last layer is linear, so the HCAT distance ``z_e / ‖w_e‖`` it reports is exactly the
signed distance of the pair's last hidden vector to the entailment decision hyperplane.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, CachedEmbedder, Embedder, get_embedder
from assay.backends.embed.factory import head_embedder_spec
from assay.backends.heads import nli_features, nli_tokens
from assay.backends.heads.nli_features import pair_features, texts_of_pairs
from assay.backends.heads.nli_tokens import TokenAligner, token_pair_features
from assay.backends.heads.store import Head, load_head
from assay.backends.nli.base import ENTAILMENT, NLIScores, softmax
from assay.errors import BackendError
from assay.params import check

_LOCK = threading.Lock()
#: Feature sets HeadNLI computes.
FEATURE_SETS = (nli_features.FEATURE_SET, nli_tokens.FEATURE_SET)


class HeadNLI:
    """NLI by the shipped MiniLM head (or a head folder trained by ``scripts/train_heads.py``).

    Args:
        head: shipped head name (``"nli"``: sentence features; ``"nli-token"``: token
            alignment) or a head folder.
        embedder: the embedder spec or instance whose vectors the head was trained on (the
            default shares the run's cached, prefetched MiniLM vectors). A head that carries
            a fine-tuned top layer (``"nli-tuned"``) reads MiniLM with that layer
            (``"minilm-top:<head>"``, sharing MiniLM's pass) whatever is given here.

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
        self._aligner: TokenAligner | None = None

    def load(self) -> Head:
        """The verified head (loaded once)."""
        if self._head is None:
            with _LOCK:
                if self._head is None:
                    loaded = load_head(self.head)
                    if loaded.features not in FEATURE_SETS or ENTAILMENT not in loaded.labels:
                        raise BackendError(
                            f"head {self.head!r} expects features {loaded.features!r} and labels "
                            f"{list(loaded.labels)}; HeadNLI needs one of {list(FEATURE_SETS)} "
                            "with an 'entailment' label"
                        )
                    if loaded.features == nli_tokens.FEATURE_SET:
                        self._aligner = TokenAligner.from_arrays(loaded.extra)
                    self._head = loaded
        return self._head

    def embedder_spec(self) -> str | Embedder:
        """The embedder whose vectors the head reads: :attr:`embedder`, or for a head with a
        fine-tuned top layer, MiniLM with its last layer replaced (``"minilm-top:<head>"``).
        Loads the head: which it is depends on its arrays."""
        return head_embedder_spec(self.head, self.load().extra, self.embedder)

    def resolved_embedder(self) -> CachedEmbedder:
        """The process's shared embedder for :meth:`embedder_spec`, looked up on every call (a
        dict look-up) rather than held: a held one goes stale when the shared embedders are
        reset (``clear_loaded``, a new cache directory), and the engine's prefetch would then
        fill a different embedder than the one the head reads."""
        return get_embedder(self.embedder_spec())

    @property
    def reads_tokens(self) -> bool:
        """Whether the head reads token matrices (the run's embedding pass must keep them)."""
        self.load()
        return self._aligner is not None

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
        embedder = self.resolved_embedder()
        if self._aligner is not None:
            features = token_pair_features(embedder, self._aligner, premises, hypotheses)
        else:
            features = pair_features(embedder, premises, hypotheses)
        logits = head.logits(features)
        distance = logits[:, head.labels.index(ENTAILMENT)] / head.row_norm(ENTAILMENT)
        return NLIScores(head.labels, logits, softmax(logits), distance,
                         np.zeros(len(premises), dtype=bool))

    def __repr__(self) -> str:
        return f"HeadNLI({self.head!r})"
