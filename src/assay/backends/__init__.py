"""Model backends: the only place heavy libraries (torch, sentence-transformers, ...) are imported.

Each backend family is a Protocol plus implementations, injected into evaluators by instance or by
a string spec; importing this package imports nothing heavy.
"""
