"""Model backends: the only place heavy libraries (torch, sentence-transformers, ...) are imported.

Each backend family is a Protocol plus implementations, injected into evaluators by instance or by
a string spec (:mod:`assay.backends.resolve`: one cache of the backends built from specs, emptied
by :func:`clear_loaded`); importing this package imports nothing heavy.
"""

from assay.backends.resolve import clear_loaded

__all__ = ["clear_loaded"]
