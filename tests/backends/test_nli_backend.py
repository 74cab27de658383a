"""The NLI backend over real (tiny, random) transformers models saved and loaded by path."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch
import transformers

from assay.backends.nli import canonical_label, get_nli, logistic
from assay.backends.nli.hf import head_layer
from assay.backends.nli.transformers_nli import TransformersNLI
from assay.backends.tiny_models import (
    tiny_consistency_model,
    tiny_nli_model,
)
from assay.errors import BackendError, InvalidInputError

PREMISES = ["the fee is 12 euros .", "cats sat on the mat .", "the account is free ."]
HYPOTHESES = ["the fee is 12 euros .", "the dog is blue .", "the account costs 12 euros ."]


def _direct_logits(path: str, premises: list[str], hypotheses: list[str]) -> np.ndarray:
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.no_grad():
        enc = tok(
            premises,
            hypotheses,
            padding=True,
            truncation="only_first",
            max_length=128,
            return_tensors="pt",
        )
        return model(**enc).logits.double().numpy()


@pytest.mark.parametrize(
    ("arch", "head"), [("bert", "classifier"), ("roberta", "classifier.out_proj")]
)
def test_labels_probs_and_hcat_distance_match_the_model(arch: str, head: str) -> None:
    path = str(tiny_nli_model(arch=arch))
    nli = TransformersNLI(path)
    scores = nli.predict(PREMISES, HYPOTHESES)
    assert scores.labels == ("contradiction", "entailment", "neutral")
    assert nli.head_path == head
    direct = _direct_logits(path, PREMISES, HYPOTHESES)
    np.testing.assert_allclose(scores.logits, direct, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(scores.probs.sum(axis=1), 1.0)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(path)
    layer = model.classifier.out_proj if arch == "roberta" else model.classifier
    norm = float(layer.weight.detach().double()[1].norm())
    np.testing.assert_allclose(scores.distance, direct[:, 1] / norm, rtol=1e-5)
    assert 0 < logistic(scores.distance).min() < 1
    # the random weights are large enough that pairs get different probabilities
    assert np.ptp(scores.prob("entailment")) > 1e-3


def test_pairs_are_memoised_and_duplicates_scored_once() -> None:
    nli = TransformersNLI(str(tiny_nli_model()))
    first = nli.predict(PREMISES * 2, HYPOTHESES * 2)
    assert len(nli._memo) == 3
    np.testing.assert_array_equal(first.logits[:3], first.logits[3:])


def test_long_premise_is_truncated_and_flagged() -> None:
    nli = TransformersNLI(str(tiny_nli_model()), max_length=16)
    long_premise = "the fee is 12 euros . " * 20
    scores = nli.predict([long_premise, "the fee is 12 euros ."], ["the fee is low .", "yes ."])
    assert scores.truncated.tolist() == [True, False]
    assert np.isfinite(scores.logits).all()


def test_missing_model_says_how_to_provide_one(tmp_path) -> None:
    nli = TransformersNLI(str(tmp_path / "no-such-model"))
    with pytest.raises(BackendError) as info:
        nli.predict(["a"], ["b"])
    message = str(info.value)
    assert "cross-encoder/nli-deberta-v3-base" in message and "local folder" in message
    assert "save_pretrained" in message


def test_labels_override_and_its_validation() -> None:
    path = str(tiny_nli_model())
    renamed = TransformersNLI(path, labels=["entailment", "neutral", "contradiction"])
    scores = renamed.predict(PREMISES, HYPOTHESES)
    assert scores.labels == ("entailment", "neutral", "contradiction")
    with pytest.raises(InvalidInputError, match="labels"):
        TransformersNLI(path, labels=["entailment", "contradiction"]).predict(["a"], ["b"])


def test_single_logit_consistency_model_gives_sigmoid() -> None:
    path = str(tiny_consistency_model())
    nli = TransformersNLI(path)
    scores = nli.predict(PREMISES, HYPOTHESES)
    assert scores.labels == ("consistent",) and scores.distance is None
    direct = _direct_logits(path, PREMISES, HYPOTHESES)[:, 0]
    np.testing.assert_allclose(
        nli.consistency(PREMISES, HYPOTHESES), 1 / (1 + np.exp(-direct)), rtol=1e-5
    )


def test_backend_pickles_without_the_model() -> None:
    nli = TransformersNLI(str(tiny_nli_model()))
    before = nli.predict(PREMISES, HYPOTHESES)
    blob = pickle.dumps(nli)
    assert len(blob) < 2000
    clone = pickle.loads(blob)
    assert clone._loaded is None
    np.testing.assert_allclose(clone.predict(PREMISES, HYPOTHESES).logits, before.logits)


def test_factory_loads_a_spec_once_per_process() -> None:
    assert get_nli("tiny") is get_nli("tiny")
    assert canonical_label("CONTRADICTION") == "contradiction"


def test_head_is_found_generically_or_a_clear_error_is_raised() -> None:
    class Custom(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = torch.nn.Linear(4, 8)
            self.final = torch.nn.Linear(8, 3)

    name, layer = head_layer(Custom(), 3)
    assert name == "final" and layer.out_features == 3
    with pytest.raises(BackendError, match="classification head"):
        head_layer(torch.nn.Sequential(torch.nn.ReLU()), 3)
