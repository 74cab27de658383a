"""Small classifier heads shipped inside the package, verified by sha256 before use.

A head is a folder ``shipped/<name>/`` holding ``head.json`` (labels, layer sizes, the feature set
it expects, the sha256 of its weights, how it was trained), ``weights.npz`` (float32 arrays:
``mean``/``scale`` standardise the input, then ``W0, b0, W1, b1, ...`` dense layers with ReLU
between them and none after the last; optionally ``data``, UTF-8 JSON as bytes: inert data the
head's reader needs, such as the toxicity head's normaliser lexicon, inside what the sha256
covers; a head whose features are themselves learnt, such as the token NLI head's alignment
layers, keeps those arrays under ``x_<name>``; an ``x_`` array given as float16, such as a
fine-tuned encoder layer's weights, is stored as float16) and ``MODEL_CARD.md`` (data,
licences, metrics, limits).
``scripts/train_heads.py`` writes all three. The classifier's forward pass is plain numpy: a
head adds a few matrix products to the embedding pass whose vectors it reuses (a fine-tuned
encoder layer runs in torch, with that pass: :mod:`assay.backends.embed.top_layer`).

Why hand-written and not a pickled scikit-learn estimator: a pickle runs code when loaded and
breaks across library versions; an npz of named arrays plus a JSON header is inert, portable and
can be hashed byte for byte (:func:`save_head` writes the zip with fixed timestamps, so training
twice with the same seed gives the same file and the same digest).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from assay.errors import BackendError

#: Folder of the heads that ship with assay.
SHIPPED = Path(__file__).resolve().parent / "shipped"
WEIGHTS = "weights.npz"
HEADER = "head.json"
CARD = "MODEL_CARD.md"
#: Member of the weights file holding the head's JSON data (UTF-8 bytes as a uint8 array).
DATA = "data"
_EXTRA = "x_"  # prefix of the feature-layer arrays in weights.npz
_EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed zip timestamps: identical weights give identical bytes


@dataclass(frozen=True)
class Head:
    """A dense classifier: standardise, ``(Linear, ReLU)*``, Linear; logits per label.

    Attributes:
        name: the head's name (its folder).
        labels: the label of each output column.
        features: the feature set the head expects (e.g. ``"nli-pair-v1"``).
        layers: ``(W, b)`` per layer, ``W`` of shape ``(inputs, outputs)``.
        mean: per-feature mean subtracted first.
        scale: per-feature divisor applied after the mean.
        sha256: digest of the weights file (the head's identity in manifests).
        header: the whole ``head.json`` (training data sizes, metrics, seed, ...).
        data: JSON data stored in the weights file (covered by ``sha256``), e.g. a lexicon.
        extra: arrays of the feature layers that come before the dense classifier (empty for a
            head over fixed features), by name.

    Example:
        >>> head = Head("toy", ("no", "yes"), "toy", [(np.eye(2, dtype=np.float32),
        ...             np.zeros(2, np.float32))], np.zeros(2, np.float32), np.ones(2, np.float32))
        >>> head.logits(np.array([[1.0, 3.0]])).tolist()
        [[1.0, 3.0]]
        >>> head.distance(np.array([[1.0, 3.0]]), "yes").tolist()
        [3.0]
    """

    name: str
    labels: tuple[str, ...]
    features: str
    layers: list[tuple[np.ndarray, np.ndarray]]
    mean: np.ndarray
    scale: np.ndarray
    sha256: str = ""
    header: Mapping[str, Any] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def model_id(self) -> str:
        """``assay-head-<name>@sha256:<16 hex>``."""
        return f"assay-head-{self.name}@sha256:{self.sha256[:16]}"

    @property
    def n_inputs(self) -> int:
        """Number of input features."""
        return int(self.layers[0][0].shape[0])

    def last_hidden(self, x: np.ndarray) -> np.ndarray:
        """The input of the last (linear) layer: standardised features through the hidden
        layers."""
        h = (np.asarray(x, dtype=np.float32) - self.mean) / self.scale
        for weight, bias in self.layers[:-1]:
            h = np.maximum(h @ weight + bias, 0.0)
        return h

    def logits(self, x: np.ndarray) -> np.ndarray:
        """``(n, len(labels))`` logits of the feature rows ``x``, as float64."""
        weight, bias = self.layers[-1]
        return (self.last_hidden(x) @ weight + bias).astype(np.float64)

    def row_norm(self, label: str) -> float:
        """‖w‖ of the last layer's column for ``label``."""
        return float(np.linalg.norm(self.layers[-1][0][:, self.labels.index(label)].astype(
            np.float64)))

    def distance(self, x: np.ndarray, label: str) -> np.ndarray:
        """Signed distance of each row's last hidden vector to the hyperplane where the logit of
        ``label`` is 0: ``z / ‖w‖`` (HCAT §3.2.2), exact because the last layer is linear."""
        return self.logits(x)[:, self.labels.index(label)] / self.row_norm(label)


def required_arrays(arrays: Mapping[str, np.ndarray], names: Sequence[str], what: str
                    ) -> dict[str, np.ndarray]:
    """The feature-layer arrays ``names`` of a head (``what`` names it in the error), as float32;
    :class:`BackendError` when any is missing.

    Example:
        >>> required_arrays({"a": np.zeros(2)}, ["a"], "the toy head")["a"].dtype
        dtype('float32')
    """
    missing = [name for name in names if name not in arrays]
    if missing:
        raise BackendError(f"{what} lacks the arrays {missing}")
    return {name: np.asarray(arrays[name], dtype=np.float32) for name in names}


def head_dir(name: str) -> Path:
    """The shipped folder of head ``name``."""
    return SHIPPED / name


def shipped_heads() -> list[str]:
    """Names of the heads that ship with assay.

    Example:
        >>> "nli" in shipped_heads()
        True
    """
    return sorted(p.name for p in SHIPPED.iterdir() if (p / HEADER).is_file())


def bytes_sha256(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=16)
def _load(folder: Path, digest_on_disk: str) -> Head:
    header_path = folder / HEADER
    header = json.loads(header_path.read_text(encoding="utf-8"))
    expected = str(header.get("sha256", ""))
    if digest_on_disk != expected:
        raise BackendError(
            f"{folder / WEIGHTS}: sha256 {digest_on_disk} does not match the "
            f"{expected or 'missing'} pinned in {header_path}; refusing to load the head "
            "(reinstall assay, or retrain it "
            "with scripts/train_heads.py)"
        )
    with np.load(folder / WEIGHTS, allow_pickle=False) as arrays:
        n_layers = int(header["n_layers"])
        layers = [(arrays[f"W{i}"], arrays[f"b{i}"]) for i in range(n_layers)]
        mean, scale = arrays["mean"], arrays["scale"]
        data = json.loads(arrays[DATA].tobytes().decode("utf-8")) if DATA in arrays else {}
        extra = {key[len(_EXTRA):]: arrays[key] for key in arrays.files
                 if key.startswith(_EXTRA)}
    return Head(
        name=str(header["name"]),
        labels=tuple(header["labels"]),
        features=str(header["features"]),
        layers=layers,
        mean=mean,
        scale=scale,
        sha256=digest_on_disk,
        header=header,
        data=data,
        extra=extra,
    )


def load_head(name_or_folder: str | Path) -> Head:
    """Load a head by shipped name or folder, after checking its weights' sha256.

    Raises:
        BackendError: the folder or a file is missing, or the weights' digest differs from the
            one pinned in ``head.json`` (names the file and both digests).

    Example:
        >>> load_head("nli").labels
        ('entailment', 'neutral', 'contradiction')
    """
    folder = Path(name_or_folder)
    if not folder.is_dir():
        folder = head_dir(str(name_or_folder))
    for needed in (HEADER, WEIGHTS):
        if not (folder / needed).is_file():
            known = ", ".join(shipped_heads()) or "none"
            raise BackendError(
                f"{folder / needed}: missing; not a head folder (heads shipped with assay: {known})"
            )
    digest = bytes_sha256((folder / WEIGHTS).read_bytes())  # small files: read whole
    return _load(folder.resolve(), digest)


def save_head(
    folder: Path,
    *,
    name: str,
    labels: Sequence[str],
    features: str,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    mean: np.ndarray,
    scale: np.ndarray,
    info: Mapping[str, Any],
    extra: Mapping[str, np.ndarray] | None = None,
    data: Mapping[str, Any] | None = None,
) -> str:
    """Write ``weights.npz`` (byte-reproducible) and ``head.json``; return the weights' sha256.

    ``info`` (data sizes, metrics, seed, ...) is stored in ``head.json`` under ``"training"``;
    ``data`` (JSON), which changes what the head computes, inside ``weights.npz``, so that the
    sha256 and the model id cover it; ``extra`` arrays (feature layers before the classifier)
    are stored as ``x_<name>``.

    Example:
        >>> import tempfile
        >>> folder = Path(tempfile.mkdtemp()) / "toy"
        >>> layer = (np.eye(2, dtype=np.float32), np.zeros(2, np.float32))
        >>> _ = save_head(folder, name="toy", labels=("no", "yes"), features="toy",
        ...               layers=[layer], mean=np.zeros(2, np.float32),
        ...               scale=np.ones(2, np.float32), info={}, data={"words": ["a"]})
        >>> load_head(folder).data
        {'words': ['a']}
    """
    arrays: dict[str, np.ndarray] = {"mean": mean, "scale": scale}
    arrays.update({f"{_EXTRA}{key}": value for key, value in (extra or {}).items()})
    for i, (weight, bias) in enumerate(layers):
        arrays[f"W{i}"], arrays[f"b{i}"] = weight, bias
    if data:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        arrays[DATA] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key in sorted(arrays):
            member = io.BytesIO()
            dtype = (np.uint8 if key == DATA else
                     np.float16 if np.asarray(arrays[key]).dtype == np.float16 else np.float32)
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[key], dtype),
                                      allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{key}.npy", _EPOCH), member.getvalue(),
                             compress_type=zipfile.ZIP_DEFLATED)
    payload = buffer.getvalue()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WEIGHTS).write_bytes(payload)
    digest = bytes_sha256(payload)
    header = {
        "name": name,
        "labels": list(labels),
        "features": features,
        "n_layers": len(layers),
        "sizes": [int(layers[0][0].shape[0]), *(int(w.shape[1]) for w, _ in layers)],
        "sha256": digest,
        "training": dict(info),
    }
    (folder / HEADER).write_text(json.dumps(header, indent=2, sort_keys=True) + "\n",
                                 encoding="utf-8")
    _load.cache_clear()
    return digest
