"""The spelling-variant normaliser: obfuscations restored, ordinary text left exactly as it was,
bounded work on hostile input."""

from __future__ import annotations

import time

import pytest

from assay.text.deobfuscate import Lexicon, deobfuscate

LEXICON = Lexicon.of(
    ["i", "a", "you", "are", "the", "all", "will", "your", "go", "and", "people", "up", "shut",
     "of", "piece", "to", "fee", "is", "see", "at", "we", "our", "it", "bank", "account"],
    ["women", "kill", "idiot", "stupid", "hate", "vermin", "immigrants", "trash", "loser",
     "muslims", "terrorists", "fucking", "die", "jews", "gay", "disgusting"])


@pytest.mark.parametrize(("obfuscated", "meant"), [
    ("you are a f*cking id10t", "you are a fucking idiot"),
    ("i will k1ll you", "i will kill you"),
    ("i will k i l l you", "i will kill you"),
    ("m u s l i m s are terrorists", "muslims are terrorists"),
    ("ihateallwomen", "i hate all women"),
    ("you worthless pieceoftrash", "you worthless piece of trash"),
    ("I hate wmoen", "I hate women"),
    ("all imigrants are vermn", "all immigrants are vermin"),
    ("Jwes are disgustign", "Jews are disgusting"),
    ("you l0ser, go d1e", "you loser, go die"),
])
def test_obfuscated_spellings_are_read_as_the_words_they_spell(obfuscated: str, meant: str
                                                               ) -> None:
    assert deobfuscate(obfuscated, LEXICON) == meant


@pytest.mark.parametrize("text", [
    "The fee is 12 EUR; see Annex A4 at https://example.com/fees.",
    "Your IBAN DE89 3704 0044 0532 0130 00 was updated at 10:45.",
    "We met Kassandra and Jwes Smith at the bank.",  # capitalised inside: a name, left alone
    "RT @hatewomen_bot: #ihateallwomen &amp; more",  # handles, hashtags, entities
    "I don't hate Muslims, and itch or hick are words too.",
    "Shit, I forgot my keys.",
    "",
])
def test_ordinary_text_is_returned_unchanged(text: str) -> None:
    assert deobfuscate(text, LEXICON) == text


MASKED = Lexicon.of(["shot", "shut", "fake", "bench", "bunch", "you", "off", "happens", "what",
                     "the"],
                    # salient, most toxic-specific first (as the toxicity head ships them)
                    ["fuck", "bitch", "shit", "fucking", "bench", "bunch", "shot", "shut"])


@pytest.mark.parametrize(("masked", "meant"), [
    ("F**k you", "fuck you"),  # was read as "fake you": one swap from a leet reading
    ("F**K off", "fuck off"),
    ("you b**ch", "you bitch"),  # "bench" and "bunch" fit too, but are less toxic-specific
    ("sh*t happens", "shit happens"),  # not "shot": a masked word is one the writer hid
    ("what the f*ck", "what the fuck"),
    ("f**king hell", "fucking hell"),
])
def test_masked_letters_are_read_as_the_most_toxic_specific_word_that_fits(
        masked: str, meant: str) -> None:
    assert deobfuscate(masked, MASKED).lower() == meant


def test_hostile_input_is_bounded() -> None:
    started = time.perf_counter()
    for text in ("a" * 50_000, "a " * 20_000, "k1" * 20_000, "*" * 50_000,
                 "x!" * 10_000 + "y", "ab" * 25_000):
        deobfuscate(text, LEXICON)
    assert time.perf_counter() - started < 10.0
