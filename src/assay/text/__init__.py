"""Text processing shared by every evaluator: sentences, tokens and normalisation."""

from assay.text.normalize import normalize_squad, squad_tokens
from assay.text.sentences import split_sentences
from assay.text.tokens import words

__all__ = ["normalize_squad", "split_sentences", "squad_tokens", "words"]
