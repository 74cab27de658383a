"""The whole pipeline with the scripted judge: determinism, metadata, coverage, drops, outputs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.backends.llm.protocol import JudgeRequest
from assay.data import read_suite
from assay.errors import InvalidInputError
from assay.generate import (
    REASONS,
    GenerationConfig,
    QueryType,
    SelectionConfig,
    generate,
)
from assay.generate.scripted import scripted_generation_judge

# thresholds for the fake (hashed bag-of-words) embedder, whose similarities run lower
FAKE = SelectionConfig(min_source_similarity=0.2, unanswerable_max_similarity=0.6)
ALL = ("factual", "multi_hop", "inference", "yes_no", "multiple_choice", "unanswerable")


def run(corpus: Path | list[Path], **kwargs: object) -> object:
    judge = kwargs.pop("judge", None) or scripted_generation_judge()
    config = GenerationConfig(**{"n": 12, "types": ALL, "chunk_size": 30, "k": 3, "seed": 7,
                                 "selection": FAKE, **kwargs})  # type: ignore[arg-type]
    return generate(corpus, judge=judge, embedder=FakeEmbedder(), config=config)


def test_suite_metadata_and_coverage(corpus_dir: Path) -> None:
    result = run(corpus_dir)
    suite, report = result.suite, result.report  # type: ignore[attr-defined]
    chunk_ids = {c.id for c in result.chunks}  # type: ignore[attr-defined]
    assert len(suite) == report["summary"]["kept"] > 0
    assert report["summary"]["kept"] + report["summary"]["dropped"] == report["summary"]["planned"]
    assert report["summary"]["topics_covered"] == report["summary"]["topics"] == 3
    assert all(row["covered"] and row["sampled"] >= 1 for row in report["coverage"])
    assert sum(row["requested"] for row in report["coverage"]) == 12
    formats = {chunk_id.split("#")[0].rsplit(".", 1)[1] for case in suite
               for chunk_id in case.metadata["source_chunk_ids"]}
    assert formats >= {"md", "txt", "html", "pdf", "docx"} - {"x"} or len(formats) >= 3
    for case in suite:
        meta = case.metadata
        assert set(meta["source_chunk_ids"]) <= chunk_ids
        assert case.query_type == meta["query_type"] in ALL
        assert case.topic == meta["topic_label"]
        assert meta["trec_class"] in ("ABBR", "ENTY", "DESC", "HUM", "LOC", "NUM")
        assert meta["generator_model"] == "scripted-generator" and meta["generation_seed"] == 7
        assert meta["key_facts"]
        if meta["answerable"]:
            assert set(case.relevant_ids or {}) == set(meta["source_chunk_ids"])
            assert meta["scores"]["grounding"] >= FAKE.min_grounding
        else:
            assert case.relevant_ids is None
            assert meta["scores"]["max_corpus_similarity"] < FAKE.unanswerable_max_similarity
        if case.query_type == "multi_hop":
            assert len(meta["source_chunk_ids"]) == 2
        if case.query_type == "multiple_choice":
            letter = meta["correct_option"]
            assert f"\n{letter}. {case.expected_answer}" in (case.question or "")
        if case.query_type == "yes_no":
            assert case.expected_answer.startswith(("Yes, ", "No, "))  # type: ignore[union-attr]
    assert {r["query_type"] for r in report["by_type"]} == set(ALL)
    assert report["config"]["seed"] == 7 and report["embedder"].startswith("fake")
    assert report["generator"]["model"] == "scripted-generator"
    assert report["generator"]["stats"]["calls"] > 0
    assert [t["id"] for t in report["topics"]["topics"]] == [0, 1, 2]
    json.dumps(report, allow_nan=False)  # serialisable


def test_same_seed_same_suite_other_seed_other_suite(corpus_dir: Path) -> None:
    first = run(corpus_dir).suite.to_records()  # type: ignore[attr-defined]
    again = run(corpus_dir).suite.to_records()  # type: ignore[attr-defined]
    assert first == again
    other = run(corpus_dir, seed=8).suite.to_records()  # type: ignore[attr-defined]
    assert other != first


def test_malformed_output_is_dropped_with_reasons_never_raised(corpus_dir: Path) -> None:
    def flaky(request: JudgeRequest) -> str:
        kind = request.variables.get("query_type")
        if kind == "factual":
            return "I cannot produce JSON today."  # parse failure after one retry
        if kind == "yes_no":
            return json.dumps({"questions": [{"question": "Is it?", "answer": "Perhaps"}]})
        if kind == "multiple_choice":
            return json.dumps({"questions": []})
        return ""  # fall through to the next rule is not possible: empty reply

    def key_facts(request: JudgeRequest) -> str:
        return '{"facts": "not a list"}'

    rules = [("write_questions", lambda r: flaky(r) if r.variables.get("query_type") in (
        "factual", "yes_no", "multiple_choice") else _default(r)), ("key_facts", key_facts)]
    result = run(corpus_dir, judge=scripted_generation_judge(rules))
    report = result.report  # type: ignore[attr-defined]
    reasons = Counter(d["reason"] for d in report["dropped"])
    assert reasons["parse_failure"] >= 2  # factual and empty multiple-choice replies
    assert reasons["malformed"] >= 1  # the yes/no item
    assert set(reasons) <= set(REASONS)
    assert all(d["detail"] for d in report["dropped"] if d["reason"] in ("parse_failure",
                                                                        "malformed"))
    # every key-fact reply was unusable: the chunks' sentences were used instead, and said so
    assert report["key_facts"]["fallbacks"] == report["key_facts"]["chunks"] > 0
    kept_types = {c.query_type for c in result.suite}  # type: ignore[attr-defined]
    assert kept_types and not kept_types & {"factual", "yes_no", "multiple_choice"}
    by_type = {r["query_type"]: r for r in report["by_type"]}
    assert by_type["factual"]["kept"] == 0 and by_type["factual"]["dropped"] > 0


def _default(request: JudgeRequest) -> str:
    from assay.generate.scripted import write_questions_reply

    return write_questions_reply(request)


def test_oversample_trims_to_quota_and_weights(corpus_dir: Path) -> None:
    result = run(corpus_dir, n=6, oversample=2.0, types=("factual", "inference"))
    report = result.report  # type: ignore[attr-defined]
    assert report["summary"]["planned"] == 12
    assert report["summary"]["kept"] <= 6
    for row in report["coverage"]:
        assert row["kept"] <= row["quota"]
    weighted = run(corpus_dir, n=6, strategy="weighted", weights={"0": 0.0},
                   types=("factual",))
    rows = {r["topic_id"]: r for r in weighted.report["coverage"]}  # type: ignore[attr-defined]
    assert rows[0]["requested"] == 0 and rows[1]["requested"] + rows[2]["requested"] == 6
    with pytest.raises(InvalidInputError, match="weight given for topic '9'"):
        run(corpus_dir, strategy="weighted", weights={"9": 1.0})


def test_custom_and_trec_taxonomies(corpus_dir: Path) -> None:
    custom = {"how_to": QueryType("how_to", "a question asking how to do something")}
    result = generate(corpus_dir, judge=scripted_generation_judge(), embedder=FakeEmbedder(),
                      taxonomy=custom, config=GenerationConfig(n=3, k=3, selection=FAKE))
    assert {c.query_type for c in result.suite} == {"how_to"}
    trec = run(corpus_dir, n=6, types=("trec",))
    assert {r["query_type"] for r in trec.report["by_type"]} == {  # type: ignore[attr-defined]
        "trec_abbr", "trec_enty", "trec_desc", "trec_hum", "trec_loc", "trec_num"}
    assert sum(r["kept"] for r in trec.report["by_trec_class"]) == len(trec.suite)  # type: ignore[attr-defined]


def test_density_clustering_with_noise_stratum(corpus_dir: Path) -> None:
    result = run(corpus_dir, cluster="hdbscan", min_cluster_size=3, reducer="none", k=None,
                 n=10)
    ids = [t.id for t in result.topics.topics]  # type: ignore[attr-defined]
    rows = result.report["coverage"]  # type: ignore[attr-defined]
    assert [r["topic_id"] for r in rows] == ids
    assert all(r["requested"] >= 1 for r in rows)  # the noise stratum is sampled too


def test_write_outputs_and_unreadable_file(corpus_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"not a docx")
    result = run([corpus_dir, broken])
    paths = result.write(tmp_path / "out" / "suite.jsonl")  # type: ignore[attr-defined]
    suite = read_suite(paths["suite"])
    assert suite.to_records() == result.suite.to_records()  # type: ignore[attr-defined]
    report = json.loads(paths["report"].read_text())
    assert report["corpus"]["failures"][0]["path"] == str(broken)
    coverage = paths["coverage"].read_text()
    assert "## By topic" in coverage and "broken.docx" in coverage
    svg = paths["topic_map"].read_text()
    assert svg.startswith("<svg") and svg.count("<circle") >= len(result.chunks)  # type: ignore[attr-defined]
    chunks = [json.loads(line) for line in paths["chunks"].read_text().splitlines()]
    assert {c["id"] for c in chunks} >= {i for case in suite for i in case.relevant_ids or {}}


def test_nothing_readable_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"junk")
    with pytest.raises(InvalidInputError, match=r"no document could be read: .*a\.pdf"):
        run(tmp_path)
