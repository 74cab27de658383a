"""One module per head trained by ``scripts/train_heads.py``."""
