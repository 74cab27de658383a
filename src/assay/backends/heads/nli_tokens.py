"""Token-level pair features for the token NLI head: soft alignment over frozen MiniLM tokens.

A sentence vector barely moves when one word of a sentence changes, so a head over sentence
vectors cannot see a detail edit. The contextual *token* vectors of the same MiniLM forward pass
can: this is the decomposable-attention model of Parikh et al. (2016, "A Decomposable Attention
Model for Natural Language Inference"), hypothesis side, on frozen token embeddings:

1. *Project*: every token vector (unit rows, :data:`~assay.backends.heads.nli_features.DIM`)
   is projected, ``x W_p + b_p``, once per text.
2. *Attend*: each hypothesis token ``h_j`` is soft-aligned to the premise tokens (softmax of
   the scaled dot products of the projections): ``β_j``, the part of the premise it matches.
3. *Compare*: ``g_j = ReLU([h_j, β_j, h_j − β_j, h_j ⊙ β_j] W_g + b_g)`` says how ``h_j`` and
   its match differ.
4. *Aggregate*: the mean and the max of ``g_j`` over the hypothesis tokens, plus the minimum
   and the mean over hypothesis tokens of the best raw cosine to any premise token (a detail
   edit shows as one badly aligned token), plus the sentence-level scalars of
   :mod:`~assay.backends.heads.nli_features` (lexical support, unsupported names/numbers,
   negation mismatch, antonyms, sizes).

The dense classifier of the :class:`~assay.backends.heads.store.Head` (one hidden layer and a
linear last layer, so HCAT's ``z/‖w‖`` stays exact) reads that row. Only the hypothesis side is
compared: the question is whether every part of the claim is supported, and a long premise
(a retrieved passage) is mostly unrelated to any one claim, so premise-side aggregates would
mean something else at scoring time than in training. The premise is the concatenation of its
sentences' token matrices, the same sentences the embedding evaluators encode, so the run's one
prefetched encoding pass serves the head (token matrices are kept in the embedding cache as
float16).

Why hand-written numpy and not torch: scoring needs a few matrix products per pair; torch would
be a heavy import for them, and an inert ``.npz`` (no pickle) keeps the head verifiable by sha256.
``scripts/heads/nli_token.py`` trains the same computation in torch and checks parity.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assay.backends.embed.base import TokenEmbedder
from assay.backends.heads.nli_features import SCALARS, premise_sentences, sentence_pair
from assay.backends.heads.nli_features import texts_of_pairs as texts_of_pairs
from assay.backends.heads.store import required_arrays
from assay.errors import BackendError

#: Name of this feature set (recorded in ``head.json``).
FEATURE_SET = "nli-token-v1"
#: The token-level scalars, after the mean and max of the compared vectors.
TOKEN_SCALARS = ("best_token_cos_min", "best_token_cos_mean")
#: Arrays of the feature layers, stored in the head as ``x_<name>``.
ARRAYS = ("proj_W", "proj_b", "cmp_W", "cmp_b")


def n_features(compare_size: int) -> int:
    """Length of a feature row for a compare layer of ``compare_size`` units.

    Example:
        >>> n_features(128)
        267
    """
    return 2 * compare_size + len(TOKEN_SCALARS) + len(SCALARS)


def _softmax_rows(x: np.ndarray) -> np.ndarray:
    shifted = np.exp(x - x.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class TokenAligner:
    """The learnt feature layers (projection and comparison) of the token NLI head.

    The compare layer is split by input block once, so a pair costs one product with the
    element-wise block only: ``[h, β, h−β, h⊙β] W_g = h (W_1+W_3) + β (W_2−W_3) + (h⊙β) W_4``,
    and ``β (W_2−W_3) = A (P (W_2−W_3))`` is computed once per premise.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> arrays = {"proj_W": rng.normal(size=(4, 3)), "proj_b": np.zeros(3),
        ...           "cmp_W": rng.normal(size=(12, 2)), "cmp_b": np.zeros(2)}
        >>> aligner = TokenAligner.from_arrays(arrays)
        >>> tokens = rng.normal(size=(5, 4))
        >>> premise = aligner.premise(tokens[:3])
        >>> aligner.features(premise, aligner.hypothesis(tokens[3:])).shape
        (6,)
    """

    proj_w: np.ndarray
    proj_b: np.ndarray
    hyp_w: np.ndarray  # W_1 + W_3
    match_w: np.ndarray  # W_2 - W_3
    prod_w: np.ndarray  # W_4
    cmp_b: np.ndarray

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> TokenAligner:
        """Build from the head's extra arrays (:data:`ARRAYS`); :class:`BackendError` if any is
        missing or the shapes disagree."""
        found = required_arrays(arrays, ARRAYS, "the token NLI head")
        proj_w, cmp_w = found["proj_W"], found["cmp_W"]
        d = proj_w.shape[1]
        if cmp_w.shape[0] != 4 * d:
            raise BackendError(f"the token NLI head's compare layer expects {cmp_w.shape[0]} "
                               f"inputs, not 4 x {d}")
        blocks = [cmp_w[k * d : (k + 1) * d] for k in range(4)]
        return cls(proj_w, found["proj_b"], blocks[0] + blocks[2], blocks[1] - blocks[2],
                   blocks[3], found["cmp_b"])

    @property
    def compare_size(self) -> int:
        """Units of the compare layer."""
        return int(self.cmp_b.shape[0])

    def project(self, tokens: np.ndarray) -> np.ndarray:
        """``tokens W_p + b_p`` (a text without tokens stands as one zero token)."""
        tokens = np.asarray(tokens, dtype=np.float32)
        if len(tokens) == 0:
            tokens = np.zeros((1, self.proj_w.shape[0]), dtype=np.float32)
        return tokens @ self.proj_w + self.proj_b

    def project_all(self, matrices: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:meth:`project` of every matrix in one product (many small products cost far more
        than one large one, above all with threaded BLAS on a busy machine)."""
        sized = [np.asarray(m, dtype=np.float32).reshape(-1, self.proj_w.shape[0]) if len(m)
                 else np.zeros((1, self.proj_w.shape[0]), dtype=np.float32) for m in matrices]
        if not sized:
            return []
        projected = np.concatenate(sized) @ self.proj_w + self.proj_b
        return np.split(projected, np.cumsum([len(m) for m in sized])[:-1])

    def premise(self, tokens: np.ndarray, projected: np.ndarray | None = None) -> tuple[
            np.ndarray, np.ndarray, np.ndarray]:
        """What a premise contributes to every pair: raw tokens, projections (computed here
        unless given), and the projections through the match block of the compare layer."""
        tokens = np.asarray(tokens, dtype=np.float32).reshape(-1, self.proj_w.shape[0])
        projected = self.project(tokens) if projected is None else projected
        return tokens, projected, projected @ self.match_w

    def hypothesis(self, tokens: np.ndarray, projected: np.ndarray | None = None) -> tuple[
            np.ndarray, np.ndarray, np.ndarray]:
        """What a hypothesis contributes: raw tokens, projections (computed here unless given),
        and the projections through the hypothesis block of the compare layer (bias
        included)."""
        tokens = np.asarray(tokens, dtype=np.float32).reshape(-1, self.proj_w.shape[0])
        projected = self.project(tokens) if projected is None else projected
        return tokens, projected, projected @ self.hyp_w + self.cmp_b

    def features(
        self,
        premise: tuple[np.ndarray, np.ndarray, np.ndarray],
        hypothesis: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> np.ndarray:
        """The token part of one pair's row: mean and max of the compared vectors, then the
        minimum and mean best raw cosine of the hypothesis tokens."""
        p_raw, p_proj, p_match = premise
        h_raw, h_proj, h_part = hypothesis
        scale = 1.0 / np.sqrt(p_proj.shape[1])
        attention = _softmax_rows((h_proj @ p_proj.T) * scale)
        aligned = attention @ p_proj
        compared = np.maximum(h_part + attention @ p_match + (h_proj * aligned) @ self.prod_w,
                              0.0)
        if len(h_raw) and len(p_raw):
            best = (h_raw @ p_raw.T).max(axis=1)
        else:
            best = np.zeros(1, dtype=np.float32)
        return np.concatenate([compared.mean(axis=0), compared.max(axis=0),
                               [best.min(), best.mean()]]).astype(np.float32)


def token_pair_features(
    embedder: TokenEmbedder,
    aligner: TokenAligner,
    premises: Sequence[str],
    hypotheses: Sequence[str],
) -> np.ndarray:
    """``(n, n_features)`` float32 rows of the pairs; every text is embedded (sentence vector
    and token matrix, one pass) and projected once.

    Args:
        embedder: an embedder with token access (the shared cached MiniLM).
        aligner: the head's feature layers.
        premises: the evidence of each pair.
        hypotheses: the claim of each pair.
    """
    width = n_features(aligner.compare_size)
    texts = texts_of_pairs(premises, hypotheses)
    if not texts:
        return np.zeros((0, width), dtype=np.float32)
    rows, tokens = embedder.encode_with_tokens(texts)
    matrix = np.asarray(rows, dtype=np.float32)
    index = {text: row for row, text in enumerate(texts)}
    projected = aligner.project_all(tokens)  # row-wise, so a premise's is its sentences'
    premise_parts: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    hypothesis_parts: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    out = np.empty((len(premises), width), dtype=np.float32)
    for i, (premise, hypothesis) in enumerate(zip(premises, hypotheses, strict=True)):
        p = premise_parts.get(premise)
        if p is None:
            rows_of = [index[s] for s in premise_sentences(premise)]
            nonempty = [r for r in rows_of if len(tokens[r])] or rows_of[:1]
            p = premise_parts[premise] = aligner.premise(
                np.concatenate([tokens[r] for r in rows_of]),
                np.concatenate([projected[r] for r in nonempty]))
        h = hypothesis_parts.get(hypothesis)
        if h is None:
            h = hypothesis_parts[hypothesis] = aligner.hypothesis(
                tokens[index[hypothesis]], projected[index[hypothesis]])
        _, _, scalars = sentence_pair(matrix, index, premise, hypothesis)
        out[i, : 2 * aligner.compare_size + len(TOKEN_SCALARS)] = aligner.features(p, h)
        out[i, 2 * aligner.compare_size + len(TOKEN_SCALARS) :] = scalars
    return out
