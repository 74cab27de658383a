"""The token NLI head: sha256-verified loading, shapes, the exact split of the compare layer,
the exact HCAT distance, and a hand-written sanity set it must get right."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from assay.backends.heads.nli_tokens import (
    ARRAYS,
    FEATURE_SET,
    TokenAligner,
    n_features,
    token_pair_features,
)
from assay.backends.heads.store import WEIGHTS, head_dir, load_head, save_head, shipped_heads
from assay.backends.nli import ENTAILMENT, get_nli
from assay.backends.nli.head_nli import HeadNLI
from assay.errors import BackendError

HEAD = "nli-token"


def test_the_token_head_ships_and_loads_verified() -> None:
    assert HEAD in shipped_heads()
    head = load_head(HEAD)
    assert head.features == FEATURE_SET
    assert head.labels == ("entailment", "neutral", "contradiction")
    assert set(ARRAYS) <= set(head.extra)
    project = head.extra["proj_W"].shape[1]
    compare = head.extra["cmp_b"].shape[0]
    assert head.extra["proj_W"].shape == (384, project)
    assert head.extra["cmp_W"].shape == (4 * project, compare)
    assert head.n_inputs == n_features(compare)
    assert head.layers[-1][0].shape[1] == 3
    assert head.model_id.startswith("assay-head-nli-token@sha256:")
    card = (head_dir(HEAD) / "MODEL_CARD.md").read_text()
    assert card.startswith("# assay nli-token head")
    assert head.sha256 in card
    assert (head_dir(HEAD) / WEIGHTS).stat().st_size < 3_000_000


def test_a_tampered_token_head_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / HEAD
    shutil.copytree(head_dir(HEAD), folder)
    data = bytearray((folder / WEIGHTS).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / WEIGHTS).write_bytes(bytes(data))
    with pytest.raises(BackendError, match=r"weights\.npz: sha256 .* does not match"):
        HeadNLI(str(folder)).predict(["A dog runs."], ["A dog runs."])


def test_a_token_head_without_its_alignment_arrays_is_refused(tmp_path: Path) -> None:
    save_head(tmp_path, name="broken", labels=("entailment", "neutral", "contradiction"),
              features=FEATURE_SET,
              layers=[(np.ones((n_features(2), 3), np.float32), np.zeros(3, np.float32))],
              mean=np.zeros(n_features(2)), scale=np.ones(n_features(2)), info={},
              extra={"proj_W": np.ones((384, 2), np.float32)})
    with pytest.raises(BackendError, match="lacks the arrays"):
        HeadNLI(str(tmp_path)).load()


def test_the_split_compare_layer_equals_the_concatenated_one() -> None:
    """Parikh's compare step on ``[h, β, h−β, h⊙β]``, written out, against the factorised form
    the head computes."""
    rng = np.random.default_rng(0)
    arrays = {"proj_W": rng.normal(size=(384, 8)), "proj_b": rng.normal(size=8),
              "cmp_W": rng.normal(size=(32, 5)), "cmp_b": rng.normal(size=5)}
    aligner = TokenAligner.from_arrays(arrays)
    premise = rng.normal(size=(7, 384)).astype(np.float32)
    hypothesis = rng.normal(size=(4, 384)).astype(np.float32)
    got = aligner.features(aligner.premise(premise), aligner.hypothesis(hypothesis))
    p = premise @ arrays["proj_W"] + arrays["proj_b"]
    h = hypothesis @ arrays["proj_W"] + arrays["proj_b"]
    energy = h @ p.T / np.sqrt(8)
    attention = np.exp(energy - energy.max(1, keepdims=True))
    attention /= attention.sum(1, keepdims=True)
    beta = attention @ p
    g = np.maximum(np.hstack([h, beta, h - beta, h * beta]) @ arrays["cmp_W"] + arrays["cmp_b"],
                   0)
    best = (hypothesis @ premise.T).max(1)
    expected = np.concatenate([g.mean(0), g.max(0), [best.min(), best.mean()]])
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)


def test_the_token_head_is_selectable_by_name_and_gives_the_exact_distance() -> None:
    nli = get_nli("head-token")
    assert isinstance(nli, HeadNLI) and nli.reads_tokens
    assert not get_nli("head-sentence").reads_tokens  # type: ignore[attr-defined]
    head = load_head(HEAD)
    premises = ["The fee is 12 euros a month.", "The bank opens at 9 am. It closes at 5 pm."]
    hypotheses = ["The fee is 12 euros.", "The bank closes at 6 pm."]
    scores = nli.predict(premises, hypotheses)
    assert scores.distance is not None
    aligner = TokenAligner.from_arrays(head.extra)
    features = token_pair_features(nli.resolved_embedder(), aligner, premises, hypotheses)
    hidden = head.last_hidden(features).astype(np.float64)
    w = head.layers[-1][0][:, 0].astype(np.float64)
    b = float(head.layers[-1][1][0])
    np.testing.assert_allclose(scores.distance, (hidden @ w + b) / np.linalg.norm(w), atol=1e-4)
    np.testing.assert_allclose(scores.distance, scores.logits[:, 0] / head.row_norm(ENTAILMENT))
    np.testing.assert_allclose(scores.probs.sum(axis=1), 1.0)


#: Hand-written pairs, none from the training data: (premise, hypothesis, entailed?).
SANITY = [
    ("The monthly account fee is 12 euros.", "The monthly account fee is 12 euros.", True),
    ("A man is playing a guitar on a stage in front of a crowd.",
     "A man is playing a guitar.", True),
    ("Two children are swimming in a lake.", "Children are in the water.", True),
    ("The monthly account fee is 12 euros.", "The monthly account fee is 40 euros.", False),
    ("The branch in Leeds opens at 9 am and closes at 5 pm.",
     "The branch in Leeds never opens.", False),
    ("A woman is sleeping in her bed.", "A woman is running a marathon.", False),
    ("Two children are swimming in a lake.", "Two dogs are sleeping on a sofa.", False),
    ("The customer paid the invoice in March.", "The customer did not pay the invoice.", False),
]
#: Hand-written pairs the shipped head gets wrong (its model card lists them as limits): a
#: claim about one of two times reads as a contradiction; "rejected" for "approved" (no WordNet
#: antonym pair) reads as entailment as often as not.
KNOWN_MISSES = [
    ("The branch in Leeds opens at 9 am and closes at 5 pm.", "The branch opens at 9 am.", True),
    ("The loan was approved by Maria on Monday.", "The loan was rejected by Maria on Monday.",
     False),
]


def _wrong(pairs: list[tuple[str, str, bool]]) -> list[tuple[str, str]]:
    scores = get_nli("head-token").predict([p for p, _, _ in pairs], [h for _, h, _ in pairs])
    predicted = [scores.labels[i] == ENTAILMENT for i in scores.probs.argmax(axis=1)]
    return [(p, h) for (p, h, entailed), got in zip(pairs, predicted, strict=True)
            if got != entailed]


def test_the_token_head_gets_the_hand_written_sanity_set_right() -> None:
    assert not _wrong(SANITY)


@pytest.mark.xfail(strict=True, reason="known limits of the shipped token head (model card)")
def test_the_token_head_s_known_misses_stay_known() -> None:
    """Fails (as expected) while the head misses any of them; a head that gets them all right
    makes this test pass, and strict xfail then asks to move them into SANITY."""
    assert not _wrong(KNOWN_MISSES)


@pytest.mark.slow
def test_token_head_training_is_seeded_and_reproducible(tmp_path: Path,
                                                        shared_data: Path) -> None:
    import sys

    scripts = str(Path(__file__).resolve().parents[2] / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    from train_heads import main

    common = ["--head", "nli-token", "--limit", "15", "--project", "8", "--compare", "8",
              "--hidden", "8", "--epochs", "2", "--threads", "1", "--seed", "3",
              "--train-share", "1.0",  # 15 pairs per file: every premise, or no early stopping
              "--data", str(shared_data / "training"), "--cache-dir", str(tmp_path / "cache")]
    assert main([*common, "--out", str(tmp_path / "one")]) == 0
    assert main([*common, "--out", str(tmp_path / "two")]) == 0
    one, two = load_head(tmp_path / "one"), load_head(tmp_path / "two")
    assert one.sha256 == two.sha256
    assert one.features == FEATURE_SET and one.n_inputs == n_features(8)
    training = one.header["training"]
    assert training["metrics"]["numpy_torch_max_logit_gap"] < 1e-3
    assert sum(training["rows"].values()) == 60  # 15 NLI pairs per file; edits counted apart
    assert (tmp_path / "one" / "MODEL_CARD.md").read_text().startswith("# assay nli-token head")


def test_too_few_premises_for_early_stopping_is_a_clear_error(tmp_path: Path,
                                                              shared_data: Path) -> None:
    """A share so small that no training premise falls to early stopping used to end in a bare
    assertion after training; it is now an error that says what to raise."""
    import sys

    scripts = str(Path(__file__).resolve().parents[2] / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    from train_heads import main

    with pytest.raises(SystemExit, match="raise --limit or --train-share"):
        main(["--head", "nli-token", "--limit", "3", "--train-share", "0.31",
              "--data", str(shared_data / "training"), "--cache-dir", str(tmp_path / "cache"),
              "--out", str(tmp_path / "head")])
    assert not (tmp_path / "head").exists()
