"""Offline by construction: no backend reaches the Hugging Face Hub unless the user opts in.

A bank runs assay air-gapped, and there an unexpected outbound call is itself an incident. Every
model load therefore runs with ``HF_HUB_OFFLINE=1`` (and ``local_files_only``) unless
``ASSAY_ALLOW_DOWNLOADS=1`` is set; a model that is neither bundled, in the local Hugging Face
cache nor a local folder then fails at once with a named error instead of retrying the network.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

#: Environment variable that allows downloads from the Hugging Face Hub.
ALLOW_DOWNLOADS = "ASSAY_ALLOW_DOWNLOADS"
_TRUE = ("1", "true", "yes")


def downloads_allowed() -> bool:
    """Whether the user opted in to downloads (``ASSAY_ALLOW_DOWNLOADS=1``) and the Hub is not
    switched off (``HF_HUB_OFFLINE=1`` always wins).

    Example:
        >>> import os
        >>> os.environ.pop("ASSAY_ALLOW_DOWNLOADS", None) and None
        >>> downloads_allowed()
        False
    """
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE:
        return False
    return os.environ.get(ALLOW_DOWNLOADS, "").strip().lower() in _TRUE


def offline_mode() -> bool:
    """Whether model loads must not reach the network (the default)."""
    return not downloads_allowed()


def offline_advice() -> str:
    """The sentence every offline load failure ends with."""
    return (
        f"assay works offline by default: pass a local model folder, or set {ALLOW_DOWNLOADS}=1 "
        "to allow downloading from the Hugging Face Hub."
    )


@contextlib.contextmanager
def no_network(enabled: bool = True) -> Iterator[None]:
    """Set ``HF_HUB_OFFLINE=1`` (and transformers' twin) for the duration of a load."""
    if not enabled:
        yield
        return
    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
