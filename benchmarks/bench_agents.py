"""Agent evaluators: BM25 search parity and speed against rank_bm25, and sanity-check throughput.

Run: python benchmarks/bench_agents.py  (writes benchmarks/results/agents.md)

- BM25: assay's ``BM25(idf="okapi")`` against ``rank_bm25.BM25Okapi`` on the same tokens: largest
  absolute score difference and top-10 agreement over queries, index + query time ratio.
  Corpus: the documents shipped in ``assay/demo/corpus`` chunked as by ``assay generate``, plus
  SummEdits documents from ../shared/data when present.
- agent_sanity: files checked per second over a generated folder of JSON, CSV, YAML and text
  artifacts (half of them broken), and whether every broken file was flagged.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "agents.md"
SHARED = ROOT.parent / "shared" / "data" / "faithfulness" / "summedits"


def corpus_texts() -> list[str]:
    from assay.corpus.chunking import chunk_documents
    from assay.corpus.ingest import ingest

    demo = ROOT / "src" / "assay" / "demo" / "corpus"
    texts = [c.text for c in chunk_documents(ingest(demo).documents)]
    if SHARED.is_dir():
        for path in sorted(SHARED.glob("*.json")):
            texts += [row["doc"] for row in json.loads(path.read_text())][:400]
    return texts


def bench_bm25() -> list[str]:
    import rank_bm25

    from assay.agents.factcheck.tools import BM25, tokens
    from assay.text import split_sentences

    texts = corpus_texts()
    docs = [tokens(t) for t in texts]
    rng = random.Random(0)
    queries = [
        tokens(s) for t in rng.sample(texts, min(200, len(texts))) for s in split_sentences(t)[:1]
    ]
    t0 = time.perf_counter()
    ours = BM25(docs, idf="okapi")
    our_scores = [ours.scores(q) for q in queries]
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = rank_bm25.BM25Okapi(docs)
    ref_scores = [ref.get_scores(q) for q in queries]
    t_ref = time.perf_counter() - t0
    diff = max(
        float(np.max(np.abs(np.array(a) - b))) for a, b in zip(our_scores, ref_scores, strict=True)
    )
    top = np.mean(
        [
            len(set(np.argsort(-np.array(a))[:10]) & set(np.argsort(-b)[:10])) / 10
            for a, b in zip(our_scores, ref_scores, strict=True)
        ]
    )
    return [
        "## BM25 (okapi idf) vs rank_bm25.BM25Okapi",
        "",
        f"{len(docs)} passages, {len(queries)} queries (first sentence of random passages).",
        "",
        "| figure | value |",
        "|---|---|",
        f"| max abs score difference | {diff:.2e} |",
        f"| top-10 agreement | {top:.3f} |",
        f"| assay index + queries (s) | {t_ours:.3f} |",
        f"| rank_bm25 index + queries (s) | {t_ref:.3f} |",
        f"| speed ratio (rank_bm25 time / assay time) | {t_ref / t_ours:.2f} |",
        "",
    ]


def bench_sanity() -> list[str]:
    from assay.agents.sanity import check_artifacts
    from assay.agents.spec import ArtifactSpec

    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        broken: set[str] = set()
        for i in range(2000):
            kind = ("json", "csv", "yaml", "txt")[i % 4]
            bad = rng.random() < 0.5
            name = f"d{i % 20}/f{i}.{kind}"
            path = root / name
            path.parent.mkdir(exist_ok=True)
            body = {
                "json": ('{"id": %d, "items": [1, 2' if bad else '{"id": %d, "items": [1, 2]}') % i,
                "csv": "id,value\n1,2,3\n" if bad else "id,value\n1,2\n3,4\n",
                "yaml": "a: [1, 2\n" if bad else "a: [1, 2]\nb: text\n",
                "txt": "" if bad else "Some notes.\n",
            }[kind]
            path.write_text(body)
            if bad:
                broken.add(name)
        t0 = time.perf_counter()
        report = check_artifacts([root], ArtifactSpec(), base=root, root=root)
        elapsed = time.perf_counter() - t0
        flagged = {c.name for c in report.failing}
    return [
        "## agent_sanity throughput",
        "",
        "| figure | value |",
        "|---|---|",
        f"| files checked | {len(report.checks)} |",
        f"| files per second | {len(report.checks) / elapsed:,.0f} |",
        f"| broken files flagged | {len(flagged & broken)} / {len(broken)} |",
        f"| good files wrongly flagged | {len(flagged - broken)} |",
        "",
    ]


def main() -> int:
    lines = ["# Agent evaluators", "", "Written by `python benchmarks/bench_agents.py`.", ""]
    lines += bench_bm25() + bench_sanity()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
