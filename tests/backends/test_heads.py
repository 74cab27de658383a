"""The shipped classifier heads: sha256-verified loading, the exact HCAT distance, the NLI head
as the offline default, and reproducible training."""

from __future__ import annotations

import shutil
import socket
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from assay.backends import clear_loaded
from assay.backends.embed import DEFAULT_SPEC, CachedEmbedder, get_embedder
from assay.backends.heads.nli_features import N_FEATURES, pair_features
from assay.backends.heads.store import WEIGHTS, Head, head_dir, load_head, save_head, shipped_heads
from assay.backends.nli import DEFAULT_NLI, ENTAILMENT, get_nli
from assay.backends.nli.head_nli import HeadNLI
from assay.errors import BackendError

ROOT = Path(__file__).resolve().parents[2]


def test_the_nli_head_ships_and_loads_verified() -> None:
    assert "nli" in shipped_heads()
    head = load_head("nli")
    assert head.labels == ("entailment", "neutral", "contradiction")
    assert head.n_inputs == N_FEATURES
    assert head.model_id.startswith("assay-head-nli@sha256:")
    assert (head_dir("nli") / "MODEL_CARD.md").read_text().startswith("# assay NLI head")
    assert (head_dir("nli") / WEIGHTS).stat().st_size < 3_000_000


def test_a_tampered_weights_file_is_refused_with_its_name(tmp_path: Path) -> None:
    folder = tmp_path / "nli"
    shutil.copytree(head_dir("nli"), folder)
    data = bytearray((folder / WEIGHTS).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / WEIGHTS).write_bytes(bytes(data))
    with pytest.raises(BackendError, match=r"weights\.npz: sha256 .* does not match"):
        load_head(folder)
    with pytest.raises(BackendError, match="sha256"):
        HeadNLI(str(folder)).predict(["A dog runs."], ["A dog runs."])


def test_a_missing_head_names_the_file_and_the_shipped_heads(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match=r"head\.json: missing; .*shipped with assay: .*nli"):
        load_head(tmp_path)


def test_saving_is_byte_reproducible_and_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=3).astype(np.float32)),
              (rng.normal(size=(3, 2)).astype(np.float32), rng.normal(size=2).astype(np.float32))]
    kwargs: dict[str, Any] = dict(name="toy", labels=("no", "yes"), features="toy",
                                  layers=layers, mean=np.zeros(4), scale=np.ones(4),
                                  info={"seed": 0})
    first = save_head(tmp_path / "a", **kwargs)
    second = save_head(tmp_path / "b", **kwargs)
    assert first == second
    assert (tmp_path / "a" / WEIGHTS).read_bytes() == (tmp_path / "b" / WEIGHTS).read_bytes()
    head = load_head(tmp_path / "a")
    x = rng.normal(size=(5, 4))
    expected = np.maximum(x @ layers[0][0] + layers[0][1], 0) @ layers[1][0] + layers[1][1]
    np.testing.assert_allclose(head.logits(x), expected, rtol=1e-5, atol=1e-5)


def test_hcat_distance_is_the_exact_distance_to_the_entailment_hyperplane() -> None:
    head = load_head("nli")
    nli = HeadNLI()
    premises = ["The fee is 12 euros a month.", "A man is sleeping on a bench.",
                "The bank opens at 9 am. It closes at 5 pm."]
    hypotheses = ["The fee is 12 euros.", "A man is running a marathon.", "The bank closes at 5 pm."]
    scores = nli.predict(premises, hypotheses)
    features = pair_features(nli.resolved_embedder(), premises, hypotheses)
    hidden = head.last_hidden(features).astype(np.float64)
    weights, bias = (a.astype(np.float64) for a in head.layers[-1])
    w, b = weights[:, 0], float(bias[0])
    assert scores.distance is not None
    for h, d in zip(hidden, scores.distance, strict=True):
        foot = h - (h @ w + b) / (w @ w) * w  # orthogonal projection onto {h : w·h + b = 0}
        assert abs(foot @ w + b) < 1e-6
        assert abs(np.linalg.norm(h - foot) - abs(d)) < 1e-4
        assert np.sign(h @ w + b) == np.sign(d)
    np.testing.assert_allclose(scores.distance, scores.logits[:, 0] / head.row_norm(ENTAILMENT))


def test_the_head_is_the_default_nli_model_and_answers_offline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self: socket.socket, address: Any) -> None:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert DEFAULT_NLI == "head"
    nli = get_nli()
    assert isinstance(nli, HeadNLI)
    scores = nli.predict(["The account fee is 5 euros per month."] * 2,
                         ["The account fee is 5 euros per month.", "The account is free."])
    entail = scores.prob(ENTAILMENT)
    assert entail[0] > entail[1]
    assert not scores.truncated.any()
    np.testing.assert_allclose(scores.probs.sum(axis=1), 1.0)


def test_the_head_pickles_without_its_embedder() -> None:
    import pickle

    nli = HeadNLI()
    nli.predict(["A cat sleeps."], ["A cat sleeps."])
    copy = pickle.loads(pickle.dumps(nli))
    assert not any(isinstance(value, CachedEmbedder) for value in vars(copy).values())
    np.testing.assert_allclose(copy.predict(["A cat sleeps."], ["A cat sleeps."]).logits,
                               nli.predict(["A cat sleeps."], ["A cat sleeps."]).logits)


def test_a_head_with_other_features_is_refused(tmp_path: Path) -> None:
    save_head(tmp_path, name="toy", labels=("no", "yes"), features="toy",
              layers=[(np.ones((2, 2), np.float32), np.zeros(2, np.float32))],
              mean=np.zeros(2), scale=np.ones(2), info={})
    with pytest.raises(BackendError, match="expects features 'toy'"):
        HeadNLI(str(tmp_path)).load()


@pytest.mark.slow
def test_training_is_seeded_and_reproducible(tmp_path: Path, shared_data: Path) -> None:
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    from train_heads import main

    common = ["--head", "nli", "--limit", "12", "--hidden", "8", "--seed", "3",
              "--data", str(shared_data / "training"), "--cache-dir", str(tmp_path / "cache")]
    assert main([*common, "--out", str(tmp_path / "one")]) == 0
    assert main([*common, "--out", str(tmp_path / "two")]) == 0
    one, two = load_head(tmp_path / "one"), load_head(tmp_path / "two")
    assert one.sha256 == two.sha256
    for (w1, b1), (w2, b2) in zip(one.layers, two.layers, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert one.header["training"]["train_rows"] + one.header["training"]["validation_rows"] == 48
    assert isinstance(one, Head)


def test_the_head_reads_the_process_s_current_shared_embedder() -> None:
    """After the shared embedders are reset, the head reads the new one (the one the engine's
    prefetch fills), never a stale embedder it held."""
    nli = HeadNLI()
    before = nli.resolved_embedder()
    assert before is get_embedder(DEFAULT_SPEC)
    clear_loaded()
    assert nli.resolved_embedder() is get_embedder(DEFAULT_SPEC)
    assert nli.resolved_embedder() is not before
