"""The progress callback of long work, one signature for every stage.

Scoring, running the system under test, generating questions, ingesting a corpus and assessing
a plan report through it; the CLI renders it (:mod:`assay.cli.progress`: rich bars on a
terminal, plain lines elsewhere), since the library never prints.
"""

from __future__ import annotations

from collections.abc import Callable

#: ``progress(task, done, total)``: ``done`` of the ``total`` items of ``task`` (an evaluator's
#: name, a stage of generation, the system under test's cases) are finished.
ProgressCallback = Callable[[str, int, int], None]

__all__ = ["ProgressCallback"]
