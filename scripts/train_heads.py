"""Train the classifier heads that ship inside assay (one entry point, one module per head).

Run: ``python scripts/train_heads.py --head nli [--limit N] [--seed 0] [--cache-dir DIR]
[--data ../shared/data/training] [--out FOLDER]``. Each head lives in ``scripts/heads/<name>.py``
and exposes ``add_arguments(parser)`` (optional) and ``train(args) -> int``; it reads its data
from ``../shared/data/training`` (never copied into the repository), embeds it with the shipped
all-MiniLM-L6-v2 through assay's embedding cache (``--cache-dir``, default
``/tmp/assay-heads-cache``, so a rerun re-encodes nothing), fits on CPU with a fixed seed and
writes ``weights.npz``, ``head.json`` (with the weights' sha256) and ``MODEL_CARD.md`` into
``src/assay/backends/heads/shipped/<name>/`` (or ``--out``). Same data + same seed = the same
bytes.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The heads this script trains: ``--head`` name -> module under ``scripts/heads/``.
HEADS = {
    "nli": "heads.nli",
    "nli-token": "heads.nli_token",
    "nli-tuned": "heads.nli_tuned",
    "hallucination": "heads.hallucination",
    "toxicity": "heads.toxicity",
    "toxicity-token": "heads.toxicity_token",
    "toxicity-tuned": "heads.toxicity_tuned",
    "bias": "heads.bias",
}


def main(argv: list[str] | None = None) -> int:
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from heads.common import add_common_arguments

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--head", required=True, choices=sorted(HEADS), help="head to train")
    add_common_arguments(parser)
    known, _ = parser.parse_known_args(argv)
    module = importlib.import_module(HEADS[known.head])
    if hasattr(module, "add_arguments"):
        module.add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    return int(module.train(args))


if __name__ == "__main__":
    sys.exit(main())
