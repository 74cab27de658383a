"""Experiment (issue 19, design note 0046): what would a MiniLM cross-encoder NLI model cost here?

The judge-free signals stop short of SummEdits' 0.70 goal; published detectors that pass it read
(passage, claim) pairs with a cross-encoder. None can be downloaded here, so the alternative is
to train one from the bundled all-MiniLM-L6-v2 on the NLI training data. This measures, on this
machine, in one run: the shared embedding pass (MiniLM sentence vectors, the reference every
head's cost is a share of), a cross-encoder's inference on premise-hypothesis pairs, and its
training step with all six layers trained (AdamW, batch 32, max 128 word pieces). Nothing is
trained to completion and nothing ships.

Writes ``benchmarks/results/cross_encoder_cost_experiment.md`` (``--out``).

Run: ``python scripts/experiments/cross_encoder_cost.py [--pairs 640] [--threads 2]``
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))

from heads.common import TRAINING_DATA  # noqa: E402
from heads.nli import LABELS, load  # noqa: E402
from heads.top_layer import load_minilm  # noqa: E402

from results_file import publish  # noqa: E402

OUT = REPO / "benchmarks" / "results" / "cross_encoder_cost_experiment.md"
#: Training pairs in the four NLI folders (all premises), for the per-epoch estimate.
NLI_TRAINING_PAIRS = 56_632


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=640, help="pairs timed per measurement")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not (TRAINING_DATA / "nli").is_dir():
        print(f"NLI training data not found at {TRAINING_DATA / 'nli'}", file=sys.stderr)
        return 1
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rows = load(TRAINING_DATA, args.pairs, 0)[: args.pairs]
    premises = [r["premise"] for r in rows]
    hypotheses = [r["hypothesis"] for r in rows]
    model = load_minilm()
    model.encode(premises[:64], batch_size=64)  # warm-up: first-call overhead is not throughput

    started = time.perf_counter()
    model.encode(premises + hypotheses, batch_size=64)
    sentences_per_s = 2 * len(rows) / (time.perf_counter() - started)

    tokenizer, bert = model.tokenizer, model[0].auto_model

    def batch(start: int, size: int) -> dict[str, torch.Tensor]:
        return dict(tokenizer(premises[start : start + size], hypotheses[start : start + size],
                              padding=True, truncation=True, max_length=128,
                              return_tensors="pt"))

    bert.eval()
    started = time.perf_counter()
    with torch.inference_mode():
        for start in range(0, len(rows), 64):
            bert(**batch(start, 64))
    infer_per_s = len(rows) / (time.perf_counter() - started)

    head = torch.nn.Linear(bert.config.hidden_size, len(LABELS))
    optimiser = torch.optim.AdamW([*bert.parameters(), *head.parameters()], lr=2e-5)
    bert.train()
    started = time.perf_counter()
    for start in range(0, len(rows), 32):
        target = torch.tensor([LABELS.index(r["label"]) for r in rows[start : start + 32]])
        logits = head(bert(**batch(start, 32)).last_hidden_state[:, 0])
        loss = torch.nn.functional.cross_entropy(logits, target)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    train_per_s = len(rows) / (time.perf_counter() - started)

    epoch_min = NLI_TRAINING_PAIRS / train_per_s / 60
    lines = [
        "# Experiment: the cost of a MiniLM cross-encoder NLI model on this machine (issue 19)",
        "",
        f"Written by `scripts/experiments/cross_encoder_cost.py --pairs {args.pairs} --threads "
        f"{args.threads}`; {len(rows)} NLI training pairs (a seeded sample of MNLI "
        f"dev-matched); Python {platform.python_version()}, torch {torch.__version__}, "
        f"{platform.machine()}, shared 2-core machine (one run; the load of other jobs moves "
        "these figures). Design note 0046.",
        "",
        "| step | rate | relative to the shared pass |",
        "|---|---:|---:|",
        f"| shared MiniLM pass (sentence vectors; the reference) | {sentences_per_s:.0f} "
        "sentences/s | 1.00 |",
        f"| cross-encoder inference, premise + hypothesis in one input | {infer_per_s:.0f} "
        f"pairs/s | {infer_per_s / sentences_per_s:.2f} |",
        f"| cross-encoder training step, all six layers (AdamW, batch 32) | {train_per_s:.1f} "
        f"pairs/s | {train_per_s / sentences_per_s:.3f} |",
        "",
        f"One epoch over the {NLI_TRAINING_PAIRS:,} NLI training pairs: about {epoch_min:.0f} min. "
        "At inference a cross-encoder reads every (passage window, answer sentence) pair, so its "
        "cost grows with their product, where the heads reuse one vector per sentence: it cannot "
        "stay within the 20 % a head may add to the shared pass.",
    ]
    publish(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
