"""What every head with a fine-tuned top layer trains on: MiniLM cut after layer 5, its cached
states, padded batches, and the pooling the shipped embedder applies (design note 0044).

The toxicity (:mod:`heads.toxicity_tuned`) and NLI (:mod:`heads.nli_tuned`) trainers both
fine-tune a copy of MiniLM's last layer on the frozen layer-5 states of their texts; the
inference path (:class:`assay.backends.embed.top_layer.TopLayerEmbedder` through
``SentenceTransformerEmbedder.encode_with_top``) pools its output as :func:`pool` does here, so
the head trained on these features meets the same features in use.
"""

from __future__ import annotations

import copy
import hashlib
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from heads.common import logger

DIM, HEADS = 384, 12


def add_fine_tune_arguments(parser: Any, epochs: int, unit: str) -> None:
    """The options of a top-layer trainer (``unit``: what a batch holds, for the help text)."""
    parser.add_argument("--epochs", type=int, default=epochs, help="epochs")
    parser.add_argument("--batch", type=int, default=32, help=f"{unit} per batch")
    parser.add_argument("--lr-layer", type=float, default=1e-4, help="learning rate, layer 6")
    parser.add_argument("--lr-head", type=float, default=3e-4, help="learning rate, head")
    parser.add_argument("--layer-dropout", type=float, default=0.1, help="dropout in layer 6")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")


def load_minilm() -> Any:
    """The bundled all-MiniLM-L6-v2 as a ``SentenceTransformer`` (sha256-verified)."""
    from sentence_transformers import SentenceTransformer

    from assay.backends.embed import minilm

    return SentenceTransformer(str(minilm.verify(minilm.model_dir())), device="cpu",
                               local_files_only=True)


class Frozen:
    """Embeddings and layers 1-5 of MiniLM (the input of layer 6), plus the pretrained layer 6."""

    def __init__(self) -> None:
        import torch

        st = load_minilm()
        self.tokenizer = st.tokenizer
        self.max_len = int(st.max_seq_length)
        bert = st[0].auto_model
        self.layer6 = copy.deepcopy(bert.encoder.layer[5])
        cut = copy.deepcopy(bert)
        cut.encoder.layer = torch.nn.ModuleList(list(cut.encoder.layer)[:5])
        cut.config.num_hidden_layers = 5
        self.cut = cut.eval()

    def states(self, texts: Sequence[str], batch: int = 64) -> list[np.ndarray]:
        """Per text, its ``(tokens incl. [CLS]/[SEP], 384)`` float32 layer-5 output."""
        import torch

        out: list[np.ndarray] = [np.zeros((0, DIM), np.float32)] * len(texts)
        order = np.argsort([len(t) for t in texts], kind="stable")
        with torch.inference_mode():
            for s in range(0, len(order), batch):
                idx = order[s : s + batch]
                enc = self.tokenizer([texts[i] for i in idx], padding=True, truncation=True,
                                     max_length=self.max_len, return_tensors="pt")
                h = self.cut(input_ids=enc["input_ids"],
                             attention_mask=enc["attention_mask"]).last_hidden_state
                lengths = enc["attention_mask"].sum(1).tolist()
                for k, i in enumerate(idx):
                    out[int(i)] = h[k, : lengths[k]].float().numpy()
        return out


def cached_states(frozen: Frozen, texts: list[str], cache_dir: Path
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(float16 concatenated states, offsets)`` of ``texts``, from ``cache_dir`` when there."""
    key = hashlib.sha1("\n".join(texts).encode("utf-8")).hexdigest()[:16]
    path, offsets_path = cache_dir / f"h5-{key}.npy", cache_dir / f"h5-{key}-offsets.npy"
    if path.is_file() and offsets_path.is_file():
        return np.load(path), np.load(offsets_path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    started, chunks, lengths = time.perf_counter(), [], []
    step = 2048
    for s in range(0, len(texts), step):
        for m in frozen.states(texts[s : s + step]):
            chunks.append(m.astype(np.float16))
            lengths.append(len(m))
        logger.info("layer-5 states %d / %d (%.0f s)", min(s + step, len(texts)), len(texts),
                    time.perf_counter() - started)
    states = np.concatenate(chunks)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    np.save(path, states)
    np.save(offsets_path, offsets)
    return states, offsets


def padded(states: np.ndarray, offsets: np.ndarray, rows: Sequence[int] | np.ndarray
           ) -> tuple[Any, Any]:
    """A padded float32 batch of the cached states of ``rows`` and its token mask."""
    import torch

    lengths = [int(offsets[r + 1] - offsets[r]) for r in rows]
    width = max(lengths)
    x = np.zeros((len(rows), width, DIM), dtype=np.float32)
    mask = np.zeros((len(rows), width), dtype=bool)
    for k, r in enumerate(rows):
        x[k, : lengths[k]] = states[offsets[r] : offsets[r + 1]]
        mask[k, : lengths[k]] = True
    return torch.from_numpy(x), torch.from_numpy(mask)


def length_batches(lengths: np.ndarray, rows: np.ndarray, size: int,
                   rng: np.random.Generator | None) -> list[np.ndarray]:
    """``rows`` in batches of similar lengths (batch order shuffled with ``rng``)."""
    ordered = rows[np.argsort(lengths[rows], kind="stable")]
    chunks = [ordered[s : s + size] for s in range(0, len(ordered), size)]
    if rng is not None:
        chunks = [chunks[int(i)] for i in rng.permutation(len(chunks))]
    return chunks


def pair_logits(model: Any, pairs: Any, rows: np.ndarray, states: np.ndarray,
                offsets: np.ndarray, n_labels: int, batch: int = 128) -> np.ndarray:
    """Logits of the pairs ``rows`` (``model(pairs, rows, states, offsets)``), in that order."""
    import torch

    model.eval()
    out = np.zeros((len(rows), n_labels))
    with torch.inference_mode():
        for s in range(0, len(rows), batch):
            out[s : s + batch] = model(pairs, rows[s : s + batch], states,
                                       offsets).double().numpy()
    return out


def pair_batches(pairs: Any, offsets: np.ndarray, rows: np.ndarray, size: int,
                 rng: np.random.Generator, hypothesis_weight: int = 1) -> list[np.ndarray]:
    """``rows`` in shuffled batches of pairs of similar total length (premise sentences plus
    ``hypothesis_weight`` times the hypothesis; ``pairs.premise[r]`` and
    ``pairs.hypothesis[r]`` index the cached texts)."""
    lengths = np.diff(offsets)
    total = np.array([lengths[pairs.premise[r]].sum()
                      + hypothesis_weight * lengths[pairs.hypothesis[r]] for r in rows])
    ordered = rows[np.argsort(total, kind="stable")]
    chunks = [ordered[s : s + size] for s in range(0, len(ordered), size)]
    return [chunks[int(i)] for i in rng.permutation(len(chunks))]


def pool(h: Any, mask: Any) -> tuple[Any, Any, Any]:
    """``(unit tokens without specials, their mask, unit sentence vectors)`` of a layer's output
    ``h`` over the token ``mask`` (``[CLS]`` first, ``[SEP]`` last), as
    ``SentenceTransformerEmbedder.encode_with_top`` pools it; a text without word tokens keeps
    one zero token (as the token heads read an empty text)."""
    import torch
    from torch.nn import functional as F

    m = mask[..., None].float()
    vectors = F.normalize((h * m).sum(1) / m.sum(1).clamp(min=1), dim=-1)
    tok = mask.clone()
    tok[:, 0] = False  # [CLS]
    last = mask.sum(1) - 1
    tok[torch.arange(len(last)), last] = False  # [SEP]
    x = F.normalize(h, dim=-1) * tok[..., None]
    tok = tok.clone()
    tok[~tok.any(1), 0] = True
    return x, tok, vectors


def warm_decay(optimiser: Any, total: int, warm_share: float = 0.05) -> Any:
    """A linear warm-up over ``warm_share`` of the ``total`` steps, then a linear decay to 0."""
    import torch

    warm = max(1, int(warm_share * total))
    return torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))


def fine_tune(model: Any, args: Any, n_rows: int, epoch_batches: Callable[[], list[np.ndarray]],
              loss_of: Callable[[np.ndarray], Any], check: Callable[[], float], metric: str
              ) -> list[dict[str, Any]]:
    """Train ``model.layer`` (learning rate ``args.lr_layer``) and ``model.head``
    (``args.lr_head``) together for ``args.epochs`` epochs of ``n_rows`` rows in batches of
    ``args.batch``: AdamW (weight decay 0.01), :func:`warm_decay`, gradients clipped to norm 1.
    ``epoch_batches()`` gives each epoch's batches of row indices, ``loss_of(batch)`` their loss;
    ``check()`` (higher is better, logged as ``metric``) is measured before the first step and
    every half epoch, and the model ends in its best checked state. Returns the checks."""
    import torch

    optimiser = torch.optim.AdamW(
        [{"params": model.layer.parameters(), "lr": args.lr_layer},
         {"params": list(model.head.parameters()), "lr": args.lr_head}], weight_decay=0.01)
    schedule = warm_decay(optimiser, math.ceil(n_rows / args.batch) * args.epochs)
    best = check()
    best_state = copy.deepcopy(model.state_dict())
    history: list[dict[str, Any]] = [{"step": 0, metric: round(best, 4)}]
    logger.info("start: %s %.4f", metric, best)
    step, started = 0, time.perf_counter()
    for epoch in range(args.epochs):
        chunks = epoch_batches()
        running = 0.0
        for i, chunk in enumerate(chunks):
            model.train()
            loss = loss_of(chunk)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            running += float(loss.item())
            if step % 100 == 0:
                logger.info("epoch %d step %d/%d loss %.4f (%.0f s)", epoch + 1, i + 1,
                            len(chunks), running / 100, time.perf_counter() - started)
                running = 0.0
            if (i + 1) in (len(chunks) // 2, len(chunks)):
                score = check()
                history.append({"step": step, "epoch": round(epoch + (i + 1) / len(chunks), 2),
                                metric: round(score, 4),
                                "seconds": round(time.perf_counter() - started, 1)})
                logger.info("check %s", history[-1])
                if score > best:
                    best, best_state = score, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    return history
