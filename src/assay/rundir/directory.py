"""Creating and committing a run directory: written under a temporary name, renamed in place."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from assay.errors import InvalidInputError


class RunDirectory:
    """A run directory written under a temporary name and renamed into place when complete.

    Args:
        out: the final directory; None keeps the run in a temporary directory only.
        overwrite: replace an existing run at ``out``.
    """

    def __init__(self, out: Path | None, overwrite: bool) -> None:
        self.final = out
        if out is not None:
            if out.exists() and not overwrite:
                raise InvalidInputError(
                    f"{out}: already exists (pass overwrite=True / --overwrite)"
                )
            out.parent.mkdir(parents=True, exist_ok=True)
            self.work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
        else:
            self.work = Path(tempfile.mkdtemp(prefix="assay-run-"))

    def commit(self) -> Path | None:
        """Move the finished work directory into place; return the final path (None without)."""
        if self.final is None:
            return None
        if self.final.exists():
            shutil.rmtree(self.final)
        self.work.rename(self.final)
        return self.final

    def discard(self) -> None:
        """Remove the work directory."""
        shutil.rmtree(self.work, ignore_errors=True)
