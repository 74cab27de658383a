"""Toxicity and bias classifiers from the heads shipped with assay, over all-MiniLM-L6-v2 vectors.

The heads (``toxicity``, ``bias``; trained by ``scripts/train_heads.py``, sha256-verified by
:func:`assay.backends.heads.store.load_head`) are linear layers on the frozen sentence vector of a
text — the same vector, from the same shared cache, that the embedding evaluators use, so a run
that already embedded the answer sentences pays only a matrix product.

Outputs (``head.json`` → ``training.output``):

* ``"subtypes"`` (toxicity): the first logit is P(toxic); each other label is a subtype head
  trained on toxic texts only, and its category score is ``P(toxic) * P(subtype | toxic)``, so a
  category never exceeds the toxicity score (as in ToxicSpans' annotation scheme).
* ``"binary"`` (bias): one logit; categories ``("Non-biased", "Biased")`` = ``(1 - p, p)``.

A head over token vectors (feature set :data:`assay.backends.heads.token_pool.FEATURE_SET`, the
token toxicity head) reads the token matrices of the same MiniLM pass as the sentence vector
(:meth:`~assay.backends.embed.cache.CachedEmbedder.encode_with_tokens`: one forward pass, or
none when the run's prefetch already kept them) through its attention-pooling layer.

A head whose weights file holds a ``deobfuscate`` lexicon (the toxicity head) reads each
text through :func:`assay.text.deobfuscate.deobfuscate` first, so that ``k1ll`` or ``w o m e n``
reach the encoder as the words they spell; ordinary text is unchanged and keeps its cached
vector. The rewritten text is returned as :attr:`ClassScores.read_as`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.backends.embed.top_layer import has_top_layer
from assay.backends.heads.token_pool import FEATURE_SET as TOKEN_FEATURE_SET
from assay.backends.heads.token_pool import TokenPooler
from assay.errors import BackendError
from assay.params import PickledAsParams
from assay.text.deobfuscate import Lexicon, deobfuscate

if TYPE_CHECKING:
    from assay.backends.embed.cache import CachedEmbedder

#: The feature set the text heads read: the L2-normalised all-MiniLM-L6-v2 sentence vector.
FEATURE_SET = "minilm-sentence-v1"
BIAS_CATEGORIES = ("Non-biased", "Biased")
#: The logit of every category of a token head for a text without word tokens.
NOTHING_READ = -40.0


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, without overflow warnings.

    Example:
        >>> sigmoid(np.array([0.0, 1000.0, -1000.0])).tolist()
        [0.5, 1.0, 0.0]
    """
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64))))


def head_scores(labels: Sequence[str], output: str, logits: np.ndarray,
                direct: Sequence[str] = ()) -> ClassScores:
    """Category scores from a head's logits, by its ``output`` kind (see the module docstring).

    ``direct`` names subtypes scored on their own (fitted against every text, not only toxic
    ones); each also counts as toxic: the first column is the max of P(toxic) and theirs.

    Example:
        >>> s = head_scores(("toxicity", "threat"), "subtypes", np.array([[0.0, 100.0]]))
        >>> s.categories, s.scores.tolist(), s.overall_scores().tolist()
        (('toxicity', 'threat'), [[0.5, 0.5]], [0.5])
        >>> head_scores(("toxicity", "threat"), "subtypes", np.array([[0.0, 100.0]]),
        ...             direct=("threat",)).scores.tolist()
        [[1.0, 1.0]]
        >>> head_scores(("Biased",), "binary", np.array([[0.0]])).scores.tolist()
        [[0.5, 0.5]]
    """
    probs = sigmoid(logits)
    if output == "subtypes":
        scores = probs.copy()
        own = [i for i, label in enumerate(labels) if i and label in direct]
        given_toxic = [i for i in range(1, len(labels)) if i not in own]
        scores[:, given_toxic] = probs[:, :1] * probs[:, given_toxic]
        if own:
            scores[:, 0] = np.maximum(probs[:, 0], probs[:, own].max(axis=1))
        return ClassScores(tuple(labels), scores, overall=scores[:, 0].copy())
    if output == "binary":
        p = probs[:, 0]
        return ClassScores(BIAS_CATEGORIES, np.stack([1.0 - p, p], axis=1), overall=p)
    raise BackendError(f"unknown head output kind {output!r} (expected 'subtypes' or 'binary')")


class HeadClassifier(PickledAsParams):
    """A :class:`~assay.backends.classify.base.TextClassifier` from a shipped text head.

    Args:
        head: a shipped head's name (``"toxicity"``, ``"toxicity-token"``,
            ``"toxicity-tuned"``, ``"bias"``) or a head folder.
        embedder: the embedder spec whose vectors the head reads (all-MiniLM-L6-v2 only: the
            head was trained on it; another model is refused when the head loads).

    Example:
        >>> clf = HeadClassifier("toxicity")
        >>> scores = clf.predict(["You are a pathetic idiot.", "Have a nice day."])
        >>> bool(scores.column("insult")[0] > 0.5 > scores.column("insult")[1])
        True
    """

    #: The heads were trained on short texts (at most 32 words): evaluators score sentences.
    per_sentence = True

    def __init__(self, head: str = "toxicity", embedder: str = "minilm") -> None:
        self.head = head
        self.embedder = embedder
        self._loaded: tuple[Any, Any] | None = None
        self._lexicon: Lexicon | None = None
        self._pooler: TokenPooler | None = None
        self._tuned = False  # the head carries a fine-tuned top layer of the embedder
        self._lock = threading.Lock()

    def load(self) -> tuple[Any, Any]:
        """``(head, embedder)``, the head verified by sha256, loaded once (with the head's
        de-obfuscation lexicon, when it has one)."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    from assay.backends.embed import minilm
                    from assay.backends.embed.factory import get_embedder, head_embedder_spec
                    from assay.backends.heads.store import load_head

                    head = load_head(self.head)
                    if head.features not in (FEATURE_SET, TOKEN_FEATURE_SET):
                        raise BackendError(f"head {head.name!r} reads features {head.features!r}"
                                           f", not {FEATURE_SET!r} or {TOKEN_FEATURE_SET!r}: "
                                           "not a text head")
                    if head.features == TOKEN_FEATURE_SET:
                        self._pooler = TokenPooler.from_arrays(head.extra)
                    self._tuned = has_top_layer(head.extra)
                    embedder = get_embedder(head_embedder_spec(self.head, head.extra,
                                                               self.embedder))
                    if not embedder.model_id.startswith(minilm.MODEL_ID):
                        raise BackendError(
                            f"head {head.name!r} was trained on {minilm.MODEL_ID}; the embedder "
                            f"{embedder.model_id} gives other vectors")
                    words = head.data.get("deobfuscate")
                    if words:
                        self._lexicon = Lexicon.from_wordpiece_vocab(
                            minilm.model_dir() / "vocab.txt", words["words"], words["salient"])
                    self._loaded = (head, embedder)
        return self._loaded

    @property
    def model_id(self) -> str:
        """The head's identity (with its weights' digest) and the embedder's; for a head with a
        fine-tuned top layer, the base embedder's (the head's digest covers the layer, so the
        derived embedder's identity would name the head twice)."""
        from assay.backends.embed.factory import get_embedder

        head, embedder = self.load()
        encoder = get_embedder(self.embedder) if self._tuned else embedder
        return f"{head.model_id}+{encoder.model_id}"

    @property
    def reads_tokens(self) -> bool:
        """Whether the head reads token matrices (a run's embedding pass must keep them)."""
        self.load()
        return self._pooler is not None

    def embedder_spec(self) -> str:
        """The spec of the embedder whose vectors the head reads: ``embedder``, or for a head
        with a fine-tuned top layer, that embedder with its last layer replaced
        (``"minilm-top:<head>"``, sharing MiniLM's pass). Loads the head: which it is depends
        on the head's arrays."""
        from assay.backends.embed.factory import head_embedder_spec

        return head_embedder_spec(self.head, self.load()[0].extra, self.embedder)

    def resolved_embedder(self) -> CachedEmbedder:
        """The process's shared caching embedder, looked up on every call (as the NLI head
        does): a held one goes stale when the shared embedders are reset, and the engine's
        prefetch would then fill another embedder than the one the head reads."""
        from assay.backends.embed.factory import get_embedder

        return get_embedder(self.embedder_spec())

    def read(self, texts: Sequence[str]) -> list[str]:
        """The texts as the head reads them: spelling variants undone when it has a lexicon."""
        self.load()
        lexicon = self._lexicon
        return [deobfuscate(t, lexicon) for t in texts] if lexicon else list(texts)

    def scores_of(self, vectors: np.ndarray, tokens: Sequence[np.ndarray] | None = None
                  ) -> ClassScores:
        """Category scores of the embedding rows ``vectors`` (of texts as :meth:`read` gives)
        and, for a token head, of their token matrices ``tokens`` (same pass)."""
        head, _ = self.load()
        training = head.header.get("training", {})
        return head_scores(head.labels, str(training.get("output", "")),
                           self.logits_of(vectors, tokens), tuple(training.get("direct", ())))

    def logits_of(self, vectors: np.ndarray, tokens: Sequence[np.ndarray] | None = None
                  ) -> np.ndarray:
        """The head's logits for embedding rows (and, for a token head, token matrices)."""
        head, _ = self.load()
        if not len(vectors):
            return np.zeros((0, len(head.labels)))
        if self._pooler is None:
            return head.logits(vectors)
        if tokens is None or len(tokens) != len(vectors):
            raise BackendError(f"head {head.name!r} reads token matrices: pass one per row")
        logits = head.logits(self._pooler.features(vectors, tokens))
        # No word the model knows (only emoji, symbols or nothing: every piece [UNK] or
        # special): the token heads learnt nothing from such rows and scored "🙂🙂" 0.7, so
        # a sentence with nothing to read reads as no category at all.
        logits[[len(t) == 0 for t in tokens]] = NOTHING_READ
        return logits

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Category scores of ``texts`` (one embedding per distinct text, shared cache; a token
        head's token matrices from the same pass). A token head marks the texts in which it
        found no word to read (``unread``): it scores them as no category, which is not a
        judgement of them."""
        if not texts:
            return self.scores_of(np.zeros((0, 0), dtype=np.float32))
        read = self.read(texts)
        embedder = self.resolved_embedder()
        if self._pooler is not None:
            vectors, tokens = embedder.encode_with_tokens(read)
            scores = dataclasses.replace(
                self.scores_of(np.asarray(vectors, dtype=np.float32), tokens),
                unread=np.array([len(t) == 0 for t in tokens], dtype=bool))
        else:
            scores = self.scores_of(np.asarray(embedder.encode(read), dtype=np.float32))
        return dataclasses.replace(scores, read_as=tuple(read)) if self._lexicon else scores

    def __repr__(self) -> str:
        return f"HeadClassifier({self.head!r}, embedder={self.embedder!r})"


def heads_of(classifier: object) -> list[HeadClassifier]:
    """The shipped-head classifiers behind ``classifier``: itself when it is one, an ensemble's
    head members (the ones that read the run's embedding pass), else none.

    Example:
        >>> from assay.backends.classify.ensemble import EnsembleClassifier
        >>> from assay.backends.classify.fake import KeywordClassifier
        >>> heads_of(HeadClassifier("toxicity"))
        [HeadClassifier('toxicity', embedder='minilm')]
        >>> heads_of(EnsembleClassifier([KeywordClassifier(), HeadClassifier("toxicity-token")]))
        [HeadClassifier('toxicity-token', embedder='minilm')]
        >>> heads_of(KeywordClassifier())
        []
    """
    if isinstance(classifier, HeadClassifier):
        return [classifier]
    members = getattr(classifier, "members", ())
    return [m for m in members if isinstance(m, HeadClassifier)]
