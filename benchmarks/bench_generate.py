"""Validity of test generation on the banking demo corpus (20 documents, one policy area each).

1. Topic recovery: k-means (k by silhouette) and HDBSCAN strata of the chunks (all-MiniLM-L6-v2,
   PCA) against the document each chunk came from (20 areas): adjusted Rand index and NMI, with a
   random labelling with the same number of clusters as the reference.
2. Coverage: share of the 20 policy areas that ``n`` questions reach when slots are drawn by
   topic-stratified sampling (``allocate`` + ``plan_slots``) versus simple random sampling of
   chunks (the reference), over 50 seeds.
3. Selection: scripted questions from the corpus, plus three kinds of corrupted copies (the
   answer's number changed, the question swapped with one from an unrelated chunk, an exact
   duplicate): share of each kind dropped with the right reason, and share of clean questions
   wrongly dropped, at the default thresholds.

Writes ``benchmarks/results/generation.md``. Run: ``python benchmarks/bench_generate.py``.
"""

from __future__ import annotations

import logging
import platform
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from assay.backends.embed import get_embedder
from assay.generate import (
    SelectionConfig,
    allocate,
    build_topics,
    chunk_documents,
    ingest,
    plan_slots,
    resolve_types,
    select,
)
from assay.generate.questions import Candidate
from assay.generate.sampling import Slot
from assay.generate.scripted import _item
from results_file import publish

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "src" / "assay" / "demo" / "corpus"
OUT = HERE / "results" / "generation.md"


def main() -> int:
    logging.getLogger("assay.generate.sampling").setLevel(logging.ERROR)
    started = time.perf_counter()
    corpus = ingest(CORPUS)
    chunks = chunk_documents(corpus.documents, size=60, overlap=1)
    truth = np.array([re.sub(r"-\d+\.md$", "", c.document_id) for c in chunks])
    areas = sorted(set(truth))
    embedder = get_embedder("minilm")
    emb = np.asarray(embedder.encode([c.text for c in chunks]), dtype=np.float64)
    texts = [c.text for c in chunks]
    lines = [
        "# Test generation validity (banking demo corpus)",
        "",
        f"{len(corpus.documents)} documents, {len(areas)} policy areas, {len(chunks)} "
        "chunks (60 words, overlap 1), embedder all-MiniLM-L6-v2, PCA to 10 dimensions.",
        "",
        "## Topic recovery (chunks vs their policy area)",
        "",
        "| strata | topics | ARI | NMI | random labelling ARI | random NMI |",
        "|---|---|---|---|---|---|",
    ]
    rng = np.random.default_rng(0)
    models = {}
    for name, kwargs in (
        ("k-means, k by silhouette (2-30)", {"k_range": (2, 30)}),
        ("HDBSCAN (min size 3)", {"method": "hdbscan", "min_cluster_size": 3}),
    ):
        model = build_topics(emb, texts, seed=0, **kwargs)  # type: ignore[arg-type]
        models[name] = model
        k = len(model.topics)
        random_labels = rng.integers(0, k, size=len(chunks))
        lines.append(
            f"| {name} | {k}{' (incl. noise)' if any(t.is_noise for t in model.topics) else ''} "
            f"| {adjusted_rand_score(truth, model.labels):.3f} "
            f"| {normalized_mutual_info_score(truth, model.labels):.3f} "
            f"| {adjusted_rand_score(truth, random_labels):.3f} "
            f"| {normalized_mutual_info_score(truth, random_labels):.3f} |"
        )
    model = models["k-means, k by silhouette (2-30)"]
    lines += [
        "",
        "## Coverage of the 20 policy areas (mean over 50 seeds)",
        "",
        "| questions n | stratified (k-means strata) | simple random chunks | ratio |",
        "|---|---|---|---|",
    ]
    types = resolve_types(["factual"])
    sizes = {t.id: t.size for t in model.topics}
    for n in (10, 20, 40):
        strat, simple = [], []
        for seed in range(50):
            slots = plan_slots(model, emb, allocate(sizes, n, seed=seed), types, seed=seed)
            strat.append(len({truth[i] for s in slots for i in s.chunks}) / len(areas))
            draw = np.random.default_rng(seed).choice(len(chunks), size=n, replace=False)
            simple.append(len({truth[i] for i in draw}) / len(areas))
        lines.append(
            f"| {n} | {np.mean(strat):.3f} | {np.mean(simple):.3f} "
            f"| {np.mean(strat) / np.mean(simple):.2f} |"
        )
    lines += _selection(chunks, emb, embedder)
    lines += [
        "",
        f"Python {platform.python_version()}, {time.perf_counter() - started:.0f} s. "
        "Reproduce: `python benchmarks/bench_generate.py`.",
    ]
    publish(OUT, lines)
    return 0


def _selection(chunks: list, emb: np.ndarray, embedder: object) -> list[str]:
    from assay.generate.questions import fallback_facts

    kinds: dict[str, list[Candidate]] = {
        "clean": [],
        "changed number": [],
        "question from another chunk": [],
        "duplicate": [],
    }
    index = 0
    used: set[str] = set()
    for ci, chunk in enumerate(chunks):
        facts = fallback_facts(chunk.text, 8)
        numbered = [f for f in facts if re.search(r"\d", f) and f not in used]
        if not numbered:
            continue
        used.add(numbered[0])  # overlapping chunks share sentences: one question per fact
        item = _item("factual", "free", [numbered], 0, None)
        slot = Slot(index, 0, "factual", (ci,))
        kinds["clean"].append(Candidate(slot, item["question"], item["answer"]))
        changed = re.sub(r"\d+", lambda m: str(int(m.group(0)) + 3), item["answer"], count=1)
        kinds["changed number"].append(
            Candidate(Slot(index + 1, 0, "factual", (ci,)), item["question"] + " ", changed)
        )
        far = int(np.argmin(emb @ emb[ci]))
        other = fallback_facts(chunks[far].text, 8)
        kinds["question from another chunk"].append(
            Candidate(
                Slot(index + 2, 0, "factual", (ci,)),
                _item("factual", "free", [other or ["x"]], 0, None)["question"],
                item["answer"],
            )
        )
        kinds["duplicate"].append(
            Candidate(Slot(index + 3, 0, "factual", (ci,)), item["question"], item["answer"])
        )
        index += 4
    expected = {
        "changed number": "ungrounded",
        "question from another chunk": "off_source",
        "duplicate": "near_duplicate",
    }
    rows = []
    for kind in ("changed number", "question from another chunk", "duplicate"):
        # each corrupted kind is screened together with the clean questions
        clean = [Candidate(c.slot, c.question, c.answer) for c in kinds["clean"]]
        batch = clean + kinds[kind]
        batch.sort(key=lambda c: c.slot.index)
        select(batch, chunks, emb, embedder, {"factual": True}, SelectionConfig())  # type: ignore[arg-type]
        bad = kinds[kind]
        caught = sum(c.dropped == expected[kind] for c in bad) / len(bad)
        wrongly = Counter(c.dropped for c in clean if c.dropped is not None)
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(wrongly.items()))
        rows.append(
            f"| {kind} | {len(bad)} | {caught:.3f} | {expected[kind]} "
            f"| {sum(wrongly.values()) / len(clean):.3f} ({reasons or '-'}) |"
        )
    return [
        "",
        "## Query selection at default thresholds",
        "",
        "| corrupted copy | n | dropped with the expected reason | reason "
        "| clean questions dropped (by reason) |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Clean questions are the scripted template questions (`What does the policy say "
        "about <first words of a fact>?`, answer: the fact); the ones dropped are templates "
        "too truncated to match their chunk (`off_source`). A corrupted copy whose clean "
        "original was dropped is dropped for the original's reason first, which bounds the "
        "duplicate row.",
    ]


if __name__ == "__main__":
    sys.exit(main())
