"""Undoing the spelling variants people use to slip abuse past filters, before a text is embedded.

``k1ll``, ``f*cking``, ``k i l l``, ``ihateallwomen``, ``wmoen``: a sentence encoder splits each
into rare word pieces and loses the word, so a toxicity head reading its vector misses it. This
module rewrites such tokens back into known words, and leaves every other token as it was, so
ordinary text comes out unchanged (and keeps its cached embedding). First, letters written with
Unicode compatibility characters (fullwidth ``ｋｉｌｌ``, circled ``ⓚⓘⓛⓛ``, mathematical
``𝐤𝐢𝐥𝐥``) become the ASCII letters they stand for (:func:`fold_letters`; the encoder reads
them as unknown pieces). Then four rules, applied in this order, each only when its result is a
known word:

1. runs of single letters split by single spaces or dots (``k i l l``, ``f.u.c.k``) are joined
   (and split into known words when they spell several: ``a s t u p i d`` → ``a stupid``); two
   adjacent lower-case fragments, one unknown, are joined when together they make a salient word
   (``hu rt``);
2. digits and symbols *inside* a token are read as letters (``0``→o/u, ``1``→i/l, ``3``→e,
   ``4``→a, ``5``→s, ``7``→t, ``@``→a, ``$``→s, ``!``→i, ``|``→l); a ``*`` masks one letter,
   and a masked token becomes the first salient word (most toxic-specific first) of its length
   that fits (``F**k`` → ``fuck``, ``b**ch`` → ``bitch``): people mask the words they know
   are offensive, so a masked ``sh*t`` is not ``shot``;
3. an unknown token of 3+ letters that is a salient word with two adjacent letters swapped, or
   (4+ letters) with an inner letter dropped, becomes that word (``wmoen`` → ``women``,
   ``vermn`` → ``vermin``);
   substitutions are not undone (they would turn ``mocks`` into a slur);
4. an unknown token of 10+ letters that splits into three or more common words, one of them
   salient, is split (``pieceoftrash`` → ``piece of trash``).

"Known" is a :class:`Lexicon`: the whole words of the embedding model's own vocabulary (ranked
by their position in it, which for a WordPiece vocabulary follows frequency), plus the words of
the toxicity head's training texts that it lacks (plurals, slang, slurs), and the *salient* words
of the head: words over-represented in its toxic training texts (insults, slurs, threats,
identity groups), the only targets of a spelling correction. Capitalised tokens other than the
first of the text are left alone (names), and so are the words of handles, hashtags, links and
entities (``@name``, ``#tag``, ``t.co/x``, ``&amp;``).

Hand-written, not a general spelling corrector (symspellpy, pyspellchecker): those rewrite names,
jargon and slang towards dictionary words, which would change the vectors of ordinary text; here
every rule is bounded (one edit, lexicon membership, linear regular expressions, a capped split)
and only ever lands on a word the toxicity head's own data marks as salient or known.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_LEET = {"0": "ou", "1": "il", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s",
         "!": "i", "|": "l", "+": "t", "*": "uaioe"}
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
#: Not a word to rewrite when glued to one of these (handles, hashtags, links, entities).
_GLUED = r"(?<![@#&/.\w])"
#: A token for rule 2: letters with leet characters somewhere inside.
_LEET_TOKEN = re.compile(_GLUED + r"[A-Za-z][A-Za-z0-9@$!|+*]*[A-Za-z](?![\w@/])")
#: Rule 1: three or more single letters, each followed by one space or dot (linear pattern).
_SPACED = re.compile(r"(?<![A-Za-z])(?:[A-Za-z][ .]){2,}[A-Za-z](?![A-Za-z])")
_WORD = re.compile(r"[A-Za-z]+")
_FREE_WORD = re.compile(_GLUED + r"[A-Za-z]+(?![\w@/])")
#: Rule 4's pieces are among this many most common known words (or salient), and never a
#: suffix (``favoriting`` is not ``favor it ing``).
_COMMON = 8000
_SUFFIXES = frozenset({"ing", "ed", "er", "es", "ly", "est", "ness", "ment", "tion", "able"})
#: Candidate combinations tried for one token's leet characters, at most.
_MAX_COMBINATIONS = 64
#: Longest token that rule 4 tries to split (the split is quadratic in its length).
_MAX_SPLIT = 40
#: Longest token rules 2 and 3 look at (their candidates grow with its length): no word is longer.
_MAX_WORD = 30


@dataclass(frozen=True)
class Lexicon:
    """Known words with a rank (lower is preferred) and the salient subset.

    Attributes:
        ranks: known word -> rank.
        salient: words preferred over any other candidate (the head's toxic vocabulary).
        masked_order: the salient words in the order a masked token (``f**k``) tries them.

    Example:
        >>> lex = Lexicon.of(["the", "kill", "idiot", "women", "hate", "all"], ["vermin"])
        >>> lex.known("vermin"), lex.known("verminn")
        (True, False)
    """

    ranks: dict[str, int] = field(default_factory=dict)
    salient: frozenset[str] = frozenset()
    masked_order: tuple[str, ...] = ()

    @classmethod
    def of(cls, words: Iterable[str], salient: Iterable[str] = ()) -> Lexicon:
        """A lexicon from words in preference order, and salient words (most toxic-specific
        first: the order in which a masked token tries them)."""
        ranks: dict[str, int] = {}
        for word in words:
            ranks.setdefault(word.lower(), len(ranks))
        order = tuple(dict.fromkeys(w.lower() for w in salient))
        for word in sorted(order):
            ranks.setdefault(word, len(ranks))
        return cls(ranks, frozenset(order), order)

    @classmethod
    def from_wordpiece_vocab(cls, path: Path, words: Iterable[str] = (),
                             salient: Iterable[str] = ()) -> Lexicon:
        """The whole alphabetic words of a WordPiece ``vocab.txt`` (2+ letters, and "a", "i"),
        in file order, then ``words``, plus ``salient``."""
        vocab = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
        return cls.of(itertools.chain((w for w in vocab if w.isascii() and w.isalpha()
                                       and (len(w) > 1 or w in ("a", "i"))), words), salient)

    def known(self, word: str) -> bool:
        """Whether ``word`` (lower-cased) is a known word."""
        return word.lower() in self.ranks

    def best(self, candidates: Iterable[str]) -> str | None:
        """The preferred known candidate: salient first, then by rank; None if none is known."""
        found = [c for c in set(candidates) if c in self.ranks]
        if not found:
            return None
        return min(found, key=lambda c: (c not in self.salient, self.ranks[c], c))


def _restorations(word: str) -> set[str]:
    """The words ``word`` could be with two adjacent letters swapped back or, for 4+ letters,
    one inner letter put back (not the first or last: ``itch`` is not a dropped ``witch``).

    Example:
        >>> sorted(w for w in _restorations("wmoen") if w in {"women", "woman"})
        ['women']
    """
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    inserts = {a + c + b for a, b in splits[1:-1] for c in _LETTERS} if len(word) >= 4 else set()
    return swaps | inserts


def _correct(word: str, lexicon: Lexicon) -> str | None:
    """Rule 3: the best salient word one edit from an unknown lower-case ``word`` (3+ letters)."""
    if not 3 <= len(word) <= _MAX_WORD or not word.isalpha() or not word.islower() \
            or lexicon.known(word):
        return None
    return lexicon.best(c for c in _restorations(word) if c in lexicon.salient)


def _unmask(token: str, lexicon: Lexicon) -> str | None:
    """Rule 2 for a token with ``*`` inside: the first salient word of its length whose letters
    fit (``*`` any letter, other leet characters their letters).

    Example:
        >>> _unmask("F**k", Lexicon.of([], ["fuck", "fork"]))
        'fuck'
        >>> _unmask("sh*t", Lexicon.of(["shot"], ["shit"]))
        'shit'
    """
    fits = [_LETTERS if ch == "*" else _LEET.get(ch, ch.lower()) for ch in token]
    return next((w for w in lexicon.masked_order if len(w) == len(token)
                 and all(c in fit for c, fit in zip(w, fits, strict=True))), None)


def _unleet(token: str, lexicon: Lexicon) -> str | None:
    """Rule 2: a token with leet characters inside read as a known word (or one edit from one)."""
    inner = token[1:-1]
    if len(token) > _MAX_WORD or not any(ch in _LEET for ch in inner):
        return None
    if "*" in inner:
        masked = _unmask(token, lexicon)
        if masked is not None:
            return masked
    options = [(_LEET[ch] if (0 < i < len(token) - 1 and ch in _LEET) else ch.lower())
               for i, ch in enumerate(token)]
    if any(not o.isalpha() for o in options):  # a digit or symbol without a letter reading
        return None
    candidates = ["".join(c) for c in itertools.islice(itertools.product(*options),
                                                       _MAX_COMBINATIONS)]
    direct = lexicon.best(candidates)
    if direct is not None:
        return direct
    # one letter too many (``st00pid`` read as ``stoupid``), dropped, or a restoration
    dropped = (c[:i] + c[i + 1:] for c in candidates for i in range(len(c)))
    return lexicon.best(w for w in dropped if w in lexicon.salient) or lexicon.best(
        w for c in candidates for w in [_correct(c, lexicon)] if w)


def _split(word: str, lexicon: Lexicon) -> str | None:
    """Rule 4: an unknown lower-case token of 10+ letters as three or more common words, one
    of them salient."""
    if len(word) < 10 or lexicon.known(word):
        return None
    found = _segment(word, lexicon)
    pieces = found.split() if found else []
    if len(pieces) < 3 or not lexicon.salient.intersection(pieces) or any(
            p in _SUFFIXES or (p not in lexicon.salient and lexicon.ranks[p] >= _COMMON)
            for p in pieces):
        return None
    return found


def _segment(word: str, lexicon: Lexicon) -> str | None:
    """``word`` (lower-case letters) as two or more known words, fewest first, then the most
    common; None when it does not split so (or is longer than ``_MAX_SPLIT``).

    Example:
        >>> _segment("shutupyou", Lexicon.of(["you", "shut", "up"]))
        'shut up you'
    """
    if not (2 <= len(word) <= _MAX_SPLIT) or not word.isalpha() or not word.islower():
        return None
    best: list[tuple[float, list[str]] | None] = [(0.0, [])] + [None] * len(word)
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 20), end):
            piece, before = word[start:end], best[start]
            if before is None or piece not in lexicon.ranks or (len(piece) == 1 and piece
                                                                  not in "ai"):
                continue
            cost = before[0] + 1.0 + lexicon.ranks[piece] / 100_000
            if best[end] is None or cost < best[end][0]:  # type: ignore[index]
                best[end] = (cost, [*before[1], piece])
    found = best[len(word)]
    return " ".join(found[1]) if found is not None and len(found[1]) > 1 else None


def _join_fragments(text: str, lexicon: Lexicon) -> str:
    """Rule 1: spaced single letters joined; two adjacent unknown fragments joined."""
    text = _SPACED.sub(lambda m: _joined(m.group(0), lexicon), text)
    tokens = text.split(" ")
    out: list[str] = []
    for token in tokens:
        if out and _WORD.fullmatch(out[-1]) and _WORD.fullmatch(token) and token.islower() \
                and out[-1].islower() and not (lexicon.known(out[-1]) and lexicon.known(token)) \
                and out[-1] + token in lexicon.salient:
            out[-1] += token
            continue
        out.append(token)
    return " ".join(out)


def _joined(run: str, lexicon: Lexicon) -> str:
    """A run of spaced single letters as the known word(s) it spells, else unchanged."""
    word = run.replace(" ", "").replace(".", "")
    if lexicon.known(word):
        return word
    return _segment(word.lower(), lexicon) or run


@lru_cache(maxsize=4096)
def _folded(char: str) -> str:
    form = unicodedata.normalize("NFKC", char)
    return form if form.isascii() and form.isalpha() else char


def fold_letters(text: str) -> str:
    """``text`` with each non-ASCII character whose compatibility form (NFKC) is plain ASCII
    letters replaced by them; every other character (accented letters, digits, symbols, emoji)
    unchanged.

    Example:
        >>> fold_letters("ⓘ ⓦⓘⓛⓛ ⓚⓘⓛⓛ ⓨⓞⓤ, ｉｄｉｏｔ, 𝐬𝐭𝐮𝐩𝐢𝐝")
        'i will kill you, idiot, stupid'
        >>> fold_letters("Café naïve, 2² ½ 🙂")
        'Café naïve, 2² ½ 🙂'
    """
    if text.isascii():
        return text
    return "".join(char if char.isascii() else _folded(char) for char in text)


def deobfuscate(text: str, lexicon: Lexicon) -> str:
    """``text`` with obfuscated spellings of known words restored (see the module docstring);
    any other text is returned unchanged.

    Example:
        >>> lex = Lexicon.of(["i", "the", "you", "will", "all", "are", "a", "kids"],
        ...                  ["vermin", "women", "hate", "kill", "idiot", "stupid", "hurt"])
        >>> deobfuscate("i will hu rt the k ids", lex)
        'i will hurt the k ids'
        >>> deobfuscate("i will k i l l you", lex)
        'i will kill you'
        >>> deobfuscate("you are a st00pid id10t", lex)
        'you are a stupid idiot'
        >>> deobfuscate("I hate wmoen, all vermn", lex)
        'I hate women, all vermin'
        >>> deobfuscate("ihateallwomen", lex)
        'i hate all women'
        >>> deobfuscate("The fee is 12 EUR, see Annex A4 at example.com.", lex)
        'The fee is 12 EUR, see Annex A4 at example.com.'
    """
    text = _join_fragments(fold_letters(text), lexicon)

    def leet(match: re.Match[str]) -> str:
        token = match.group(0)
        return _unleet(token, lexicon) or token

    text = _LEET_TOKEN.sub(leet, text)

    def word(match: re.Match[str]) -> str:
        token = match.group(0)
        if match.start() > 0 and not token.islower():
            return token  # a capitalised word inside the text: a name, left alone
        lower = token.lower()
        fixed = _correct(lower, lexicon) or _split(lower, lexicon)
        if fixed is None:
            return token
        return fixed.capitalize() if token[0].isupper() else fixed

    return _FREE_WORD.sub(word, text)
