"""Small classifier heads over frozen all-MiniLM-L6-v2 vectors, shipped inside the package.

Each head (``shipped/<name>/``: ``head.json``, ``weights.npz``, ``MODEL_CARD.md``) is trained by
``scripts/train_heads.py --head <name>`` on the public data in ``../shared/data/training`` and
verified by sha256 before use. Nothing heavy is imported here: a head is a numpy forward pass.

Example:
    >>> from assay.backends.heads import load_head
    >>> load_head("nli").labels
    ('entailment', 'neutral', 'contradiction')
"""

from assay.backends.heads.store import Head, load_head, save_head, shipped_heads

__all__ = ["Head", "load_head", "save_head", "shipped_heads"]
