"""The fact-check agent's tools: BM25 (parity with rank_bm25), corpus search, web adapter."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from assay.agents.factcheck.tools import BM25, CorpusSearch, WebSearch, call_tool, tokens
from assay.backends.embed.fake import FakeEmbedder
from assay.errors import InvalidInputError

DOCS = [
    "The monthly account fee is 12 euros and is waived for students.",
    "Debit cards are free; a replacement card costs 5 euros.",
    "You can close the account online at no cost.",
    "International transfers cost 1 percent of the amount, at least 3 euros.",
    "The bank was founded in 1998 in Lyon.",
    "Students must show a valid student card every year.",
]


def test_bm25_okapi_matches_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = [tokens(d) for d in DOCS]
    ours = BM25(corpus, idf="okapi")
    theirs = rank_bm25.BM25Okapi(corpus)
    for query in ("monthly fee students", "card cost", "account", "founded Lyon", "zebra"):
        q = tokens(query)
        np.testing.assert_allclose(ours.scores(q), theirs.get_scores(q), rtol=1e-9, atol=1e-12)


def test_bm25_lucene_idf_is_positive_on_tiny_corpora() -> None:
    corpus = [["fee"], ["card"]]
    assert BM25(corpus, idf="okapi").scores(["fee"]) == [0.0, 0.0]  # log(1.5/1.5) = 0
    lucene = BM25(corpus).scores(["fee"])
    assert lucene[0] > 0 and lucene[1] == 0
    assert BM25([]).scores(["x"]) == []


def test_corpus_search_forms(tmp_path: Path) -> None:
    as_list = CorpusSearch(DOCS)
    top = as_list.search("how much is the account fee per month", k=2)
    assert top[0].id == "corpus:1" and top[0].score > top[1].score
    mapping = CorpusSearch({"fees": DOCS[0], "cards": DOCS[1]}, name="kb")
    assert [e.id for e in mapping.search("replacement card", k=1)] == ["kb:cards"]
    records = CorpusSearch([{"id": "a", "text": DOCS[4], "source": "history.md"}])
    assert records.search("founded", 1)[0].source == "history.md"
    assert CorpusSearch(DOCS).search("zebra giraffe", k=3) == []  # no zero-score passages
    (tmp_path / "fees.md").write_text("# Fees\n\n" + DOCS[0] + " " + DOCS[1])
    (tmp_path / "history.txt").write_text(DOCS[4])
    folder = CorpusSearch(tmp_path)
    hit = folder.search("when was the bank founded", k=1)[0]
    assert hit.id.startswith("corpus:history.txt") and hit.source.endswith("history.txt")
    with pytest.raises(InvalidInputError, match="corpus item 1"):
        CorpusSearch([3.5])
    with pytest.raises(InvalidInputError, match="method"):
        CorpusSearch(DOCS, method="tfidf")


def test_embedding_search_with_fake_embedder() -> None:
    search = CorpusSearch(DOCS, method="embedding", embedder=FakeEmbedder())
    results = search.search(DOCS[2], k=3)
    assert results[0].id == "corpus:3" and results[0].score == pytest.approx(1.0, abs=1e-5)
    assert len(results) == 3 and results[0].score >= results[1].score >= results[2].score


def test_a_pickled_search_keeps_its_index_and_encodes_its_corpus_again() -> None:
    embedding = CorpusSearch(DOCS, method="embedding", embedder=FakeEmbedder())
    bm25 = CorpusSearch(DOCS)
    before = embedding.search(DOCS[2], k=2), bm25.search("monthly fee", k=2)
    embedding_clone, bm25_clone = pickle.loads(pickle.dumps((embedding, bm25)))
    assert "_matrix" in vars(embedding) and "_matrix" not in vars(embedding_clone)
    assert "_bm25" in vars(bm25_clone)  # the index travels with the tool
    assert (embedding_clone.search(DOCS[2], k=2), bm25_clone.search("monthly fee", k=2)) == before


def test_web_search_adapter_and_failures() -> None:
    seen: list[tuple[str, int]] = []

    def web(query: str, k: int) -> list[object]:
        seen.append((query, k))
        return ["plain snippet", {"url": "https://b.example/fees", "title": "Fees",
                                  "snippet": "12 euros"}, {"link": "https://c", "text": "x"}]

    tool = WebSearch(web)
    results = tool.search("fee", k=2)
    assert seen == [("fee", 2)]
    assert [(e.id, e.text, e.source) for e in results] == [
        ("web:1", "plain snippet", ""), ("web:https://b.example/fees", "Fees: 12 euros",
                                         "https://b.example/fees")]
    one_arg = WebSearch(lambda q: [f"about {q}"])
    assert one_arg.search("x", 3)[0].text == "about x"
    bad = call_tool(WebSearch(lambda q: [42]), "x", 3)
    assert bad.error is not None and "must be a string or a mapping" in bad.error
    failing = call_tool(WebSearch(lambda q: 1 / 0), "x", 3)
    assert failing.describe() == 'web("x") -> error: ZeroDivisionError: division by zero'
    with pytest.raises(InvalidInputError):
        WebSearch("not callable")  # type: ignore[arg-type]
