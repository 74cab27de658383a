"""The fact-check agent's tools: search over a user corpus (BM25 or embeddings, offline) and an
adapter for a user-supplied web-search callable.

A tool takes a query and returns :class:`Evidence` passages with ids unique across the tool;
:func:`call_tool` records each call (query, results or error) as a :class:`ToolCall`, and never
raises for a failing tool.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from assay.errors import InvalidInputError
from assay.evaluators.resolved import ResolvesOnce
from assay.params import check, check_choice
from assay.text import words
from assay.text.idf import lucene_bm25_idf, okapi_bm25_idf
from assay.text.porter import porter_stem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Evidence:
    """One passage returned by a tool."""

    id: str
    text: str
    source: str = ""
    score: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (score rounded)."""
        data = asdict(self)
        data["score"] = round(self.score, 4)
        return data


@dataclass
class ToolCall:
    """One recorded tool call."""

    tool: str
    query: str
    results: list[Evidence] = field(default_factory=list)
    error: str | None = None

    def describe(self) -> str:
        """A one-line record: ``corpus("fee") -> [a#0, b#2]`` or ``-> error: ...``.

        Example:
            >>> ToolCall("corpus", "fee", [Evidence("a#0", "Fee: 12.")]).describe()
            'corpus("fee") -> [a#0]'
        """
        head = f'{self.tool}("{self.query}")'
        if self.error is not None:
            return f"{head} -> error: {self.error}"
        return f"{head} -> [{', '.join(e.id for e in self.results)}]"

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {"tool": self.tool, "query": self.query, "error": self.error,
                "results": [e.to_dict() for e in self.results]}


@runtime_checkable
class SearchTool(Protocol):
    """A search tool the agent may call."""

    name: str
    description: str

    def search(self, query: str, k: int) -> list[Evidence]:
        """The ``k`` best passages for ``query``."""


def tokens(text: str) -> list[str]:
    """BM25 tokens: lower-cased words, Porter-stemmed.

    Example:
        >>> tokens("Fees are charged monthly")
        ['fee', 'are', 'charg', 'monthli']
    """
    return [porter_stem(w) for w in words(text)]


class BM25:
    """BM25 over pre-tokenised documents.

    ``idf="lucene"`` (default) uses ``log(1 + (N - df + 0.5) / (df + 0.5))``, always positive,
    so a term found in half of a tiny corpus still counts. ``idf="okapi"`` is the formula of
    ``rank_bm25.BM25Okapi`` (``log((N - df + 0.5) / (df + 0.5))``, negative values floored at
    ``epsilon`` times the mean idf).

    Example:
        >>> corpus = [["fee", "euro"], ["card", "free"], ["fee", "waiv"]]
        >>> [round(s, 3) for s in BM25(corpus).scores(["fee"])]
        [0.47, 0.0, 0.47]
        >>> [round(s, 3) for s in BM25(corpus, idf="okapi").scores(["fee"])]
        [0.077, 0.0, 0.077]
    """

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25, idf: str = "lucene") -> None:
        check_choice(idf, ("lucene", "okapi"), "idf", "BM25")
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.doc_len = np.array([len(d) for d in corpus], dtype=float)
        self.avgdl = float(self.doc_len.mean()) if len(corpus) else 0.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, doc in enumerate(corpus):
            for term, count in Counter(doc).items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(index)
                tfs.append(count)
        #: term -> (document indices, term frequencies): an inverted index.
        self.postings = {t: (np.array(d), np.array(f, dtype=float))
                         for t, (d, f) in postings.items()}
        df = {t: len(d) for t, (d, _) in postings.items()}
        n = len(corpus)
        if idf == "lucene":
            self.idf = {t: lucene_bm25_idf(n, f) for t, f in df.items()}
        else:
            self.idf = okapi_bm25_idf(n, df, epsilon)

    def scores(self, query: Sequence[str]) -> list[float]:
        """The BM25 score of every document for ``query``."""
        out = np.zeros(len(self.doc_len))
        if not len(self.doc_len):
            return []
        norm = self.k1 * (1 - self.b + self.b * self.doc_len / (self.avgdl or 1.0))
        for term in query:
            if term not in self.postings:
                continue
            docs, tf = self.postings[term]
            out[docs] += self.idf[term] * tf * (self.k1 + 1) / (tf + norm[docs])
        return [float(s) for s in out]


def _passages(corpus: Any) -> list[tuple[str, str, str]]:
    """``(id, text, source)`` of every passage of a corpus given in any accepted form."""
    if isinstance(corpus, str | os.PathLike):
        from assay.corpus.chunking import chunk_documents
        from assay.corpus.ingest import ingest

        read = ingest(Path(corpus))
        if not read.documents:
            raise InvalidInputError(f"{corpus}: no readable documents for the search corpus")
        return [(c.id, c.text, c.source) for c in chunk_documents(read.documents)]
    if isinstance(corpus, Mapping):
        return [(str(k), str(v), str(k)) for k, v in corpus.items()]
    out: list[tuple[str, str, str]] = []
    for i, item in enumerate(corpus, start=1):
        if isinstance(item, str):
            out.append((str(i), item, ""))
        elif isinstance(item, Mapping) and "text" in item:
            ident = str(item.get("id", i))
            out.append((ident, str(item["text"]), str(item.get("source", ident))))
        elif hasattr(item, "id") and hasattr(item, "text"):  # corpus.chunking.Chunk
            out.append((str(item.id), str(item.text), str(getattr(item, "source", ""))))
        else:
            raise InvalidInputError(f"corpus item {i} must be a string, a mapping with 'text' "
                                    f"or a chunk; got {type(item).__name__}")
    return out


class CorpusSearch(ResolvesOnce):
    """Offline search over a user corpus, by BM25 (default) or embedding cosine.

    The BM25 index and the passage embeddings are built on first search and held through
    :class:`~assay.evaluators.resolved.ResolvesOnce`; the embeddings stay out of pickles (a
    shipped tool encodes its corpus again where it runs), the index travels with the tool.

    Args:
        corpus: A folder or file (read and chunked as by ``assay generate``), a list of texts
            (ids ``1..n``), a mapping id -> text, or records / chunks with ``id`` and ``text``.
        method: ``"bm25"`` or ``"embedding"``.
        embedder: Embedder or spec (``method="embedding"`` only; default ``"minilm"``).
        name: The tool's name as shown to the judge.

    Example:
        >>> search = CorpusSearch(["The fee is 12 euros a month.", "Cards are free."])
        >>> [e.id for e in search.search("monthly fee", k=1)]
        ['corpus:1']
    """

    #: The passage embeddings are rebuilt in the process a tool is shipped to.
    unpickled: ClassVar[tuple[str, ...]] = (*ResolvesOnce.unpickled, "_matrix")

    def __init__(self, corpus: Any, method: str = "bm25", embedder: Any = "minilm",
                 name: str = "corpus") -> None:
        check_choice(method, ("bm25", "embedding"), "method", "CorpusSearch")
        self.name = name
        self.method = method
        self.description = (f"searches the reference documents ({method}); give a short "
                            "keyword query")
        self.passages = _passages(corpus)
        self.embedder = embedder

    def _embedder(self) -> Any:
        from assay.backends.embed import get_embedder

        return get_embedder(self.embedder) if isinstance(self.embedder, str) else self.embedder

    def search(self, query: str, k: int = 3) -> list[Evidence]:
        """The ``k`` passages scoring best for ``query`` (ties by corpus order; zero-score
        BM25 passages are left out)."""
        if not self.passages:
            return []
        if self.method == "bm25":
            index = self.resolve_once(lambda: BM25([tokens(t) for _, t, _ in self.passages]),
                                      "_bm25")
            scores = np.array(index.scores(tokens(query)))
        else:
            embedder = self._embedder()
            matrix = self.resolve_once(
                lambda: embedder.encode([t for _, t, _ in self.passages]), "_matrix")
            scores = matrix @ embedder.encode([query])[0]
        order = np.argsort(-scores, kind="stable")[:k]
        return [Evidence(f"{self.name}:{self.passages[i][0]}", self.passages[i][1],
                         self.passages[i][2], float(scores[i]))
                for i in order if self.method != "bm25" or scores[i] > 0]


class WebSearch:
    """Adapter for a user-supplied web-search callable.

    ``fn(query)`` (or ``fn(query, k)`` when it accepts two arguments) returns results: strings,
    or mappings with ``snippet`` / ``text`` / ``content`` and optionally ``url`` and ``title``.
    Nothing is fetched by assay itself.

    Example:
        >>> web = WebSearch(lambda q: [{"url": "https://x.org/fee", "snippet": "Fee: 12."}])
        >>> web.search("fee", k=2)[0]
        Evidence(id='web:https://x.org/fee', text='Fee: 12.', source='https://x.org/fee', score=0.0)
    """

    def __init__(self, fn: Callable[..., Any], name: str = "web",
                 description: str = "searches the web; give a short query") -> None:
        check(callable(fn), "fn", "WebSearch", "a callable", fn)
        self.fn = fn
        self.name = name
        self.description = description

    def search(self, query: str, k: int = 3) -> list[Evidence]:
        """Call the user's function and normalise its results."""
        raw = self.fn(query, k) if _takes_two(self.fn) else self.fn(query)
        out: list[Evidence] = []
        for n, item in enumerate(list(raw or [])[:k], start=1):
            if isinstance(item, str):
                out.append(Evidence(f"{self.name}:{n}", item))
                continue
            if not isinstance(item, Mapping):
                raise InvalidInputError(f"web search result {n} must be a string or a mapping; "
                                        f"got {type(item).__name__}")
            text = item.get("snippet") or item.get("text") or item.get("content") or ""
            url = str(item.get("url") or item.get("link") or "")
            title = str(item.get("title") or "")
            body = f"{title}: {text}" if title and text else str(text or title)
            out.append(Evidence(f"{self.name}:{url or n}", body, url))
        return out


def _takes_two(fn: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    try:
        signature.bind("query", 3)
    except TypeError:
        return False
    return True


def call_tool(tool: SearchTool, query: str, k: int) -> ToolCall:
    """Run one search and record it; a failing tool gives a call with ``error`` set.

    Example:
        >>> def broken(q): raise TimeoutError("no network")
        >>> call_tool(WebSearch(broken), "fee", 3).describe()
        'web("fee") -> error: TimeoutError: no network'
    """
    try:
        return ToolCall(tool.name, query, tool.search(query, k))
    except Exception as exc:  # a user's tool may raise anything
        logger.info("tool %s failed on %r: %s", tool.name, query, exc)
        return ToolCall(tool.name, query, error=f"{type(exc).__name__}: {exc}")
