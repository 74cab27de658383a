"""Contrast sets for the toxicity heads (issue 19; design notes 0054, 0055): the same
statement about a group affirmed and negated, with its praise or its contempt (stance); the same
harsh act on a thing and on a group (target); and, in an experiment the shipped head does not
use (0055), the same hateful words quoted to condemn them and quoted to deliver them, or referred
to with blame and with approval (speaker).

The labelled sources state hate outright and almost never deny a statement about a group, so a
head learns "not" as a sign of counter-speech: it left 60 % of the hate phrased as a denied
positive statement ("<group> are not <praise>") unflagged and flagged a third of the negated
hate ("<group> are not <insult>"). These rows cross four cells over the same groups and
frames, so that neither the group, the frame nor the negation carries the label alone:

============================  =====================
praise, affirmed              not toxic
praise, negated / denied      toxic identity attack
contempt, affirmed            toxic identity attack
contempt, negated / denied    not toxic
============================  =====================

The groups, predicates and negation forms are assay's own lists; a row whose words overlap a
sentence of assay's functional suites (word-set Jaccard at or above
:data:`MAX_SUITE_OVERLAP`), or whose letters repeat one, is dropped
(``tests/backends/test_train_text_heads.py`` checks it). Deterministic for a seed.
"""

from __future__ import annotations

import importlib
import random
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from heads.toxicity_data import Example

#: The folder of assay's functional suites (``toxicity_functional``, ``toxicity_heldout``).
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

#: Source name of these rows.
CONTRAST = "stance_contrast"
#: Groups (in a sentence, at its start). Protected characteristics of every kind, beyond the
#: seven groups of assay's held-out suite.
GROUPS = (
    "women", "trans people", "gay people", "lesbians", "bisexual people", "Black people",
    "Asian people", "Latinos", "Mexicans", "Chinese people", "Arabs", "Jews", "Muslims",
    "Christians", "Hindus", "Sikhs", "immigrants", "refugees", "migrants", "disabled people",
    "deaf people", "blind people", "autistic people", "Native Americans", "Roma",
    "old people", "Africans", "Indians", "Pakistanis", "Hispanic people", "Catholics",
    "atheists",
)
#: What a group "are": praise and contempt.
PRAISE = (
    "kind", "honest", "intelligent", "hard-working", "trustworthy", "good parents",
    "decent people", "valued members of society", "welcome here", "smart", "generous", "brave",
    "talented", "peaceful", "loyal", "friendly", "responsible", "reliable", "caring",
    "good neighbours", "an asset to this country", "a blessing to our community",
    "as capable as anyone else", "worthy of respect", "wonderful colleagues", "law-abiding",
    "good at their jobs", "fit to lead", "equals in every way", "deserving of dignity",
)
CONTEMPT = (
    "lazy", "dishonest", "stupid", "violent", "dirty", "criminals", "parasites", "a plague",
    "dangerous", "evil", "disgusting", "useless", "a burden on society", "vermin", "animals",
    "inferior", "greedy", "liars", "a threat to our children", "subhuman", "filthy", "savages",
    "pathetic", "repulsive", "a disease", "scum", "cowards", "freaks", "trash", "thieves",
)
#: What a group "do": praise and contempt, as (auxiliary or "", verb phrase).
PRAISE_ACTS = (
    ("", "deserve respect"), ("", "belong in this country"), ("", "make great leaders"),
    ("", "contribute so much"), ("", "deserve equal rights"), ("should", "be allowed to vote"),
    ("should", "be treated with dignity"), ("can", "be trusted with responsibility"),
    ("", "enrich our culture"), ("should", "have a voice in politics"),
)
CONTEMPT_ACTS = (
    ("should", "be deported"), ("should", "be locked up"), ("", "deserve to suffer"),
    ("", "ruin everything they touch"), ("should", "be banned from our schools"),
    ("", "spread disease"), ("", "destroy our neighbourhoods"), ("should", "be wiped out"),
    ("", "breed like rats"), ("should", "be kept away from our children"),
)
#: Ways to affirm "<g> are <p>" and to negate or deny it.
AFFIRMED = ("{G} are {p}.", "I think {g} are {p}.", "Honestly, {g} are {p}.",
            "Everyone knows {g} are {p}.", "{G} are always {p}.")
NEGATED = ("{G} are not {p}.", "{G} aren't {p}.", "{G} are never {p}.",
           "I don't think {g} are {p}.", "It is not true that {g} are {p}.",
           "{G} will never be {p}.", "{G} can never be {p}.", "None of the {g} I know are {p}.",
           "Nobody believes {g} are {p}.", "{G} are anything but {p}.")
#: Ways to affirm "<g> [aux] <act>" and to negate it (``{a}``: the auxiliary and a space).
AFFIRMED_ACTS = ("{G} {a}{v}.", "I think {g} {a}{v}.", "Of course {g} {a}{v}.")
NEGATED_ACTS = ("{G} {n} {v}.", "I don't think {g} {a}{v}.", "{G} {never} {v}.",
                "It is not true that {g} {a}{v}.")
#: Harsh acts (verb and particle), and the things a bank or anyone may rightly do them to.
ACTS_ON_THINGS = (("destroy", ""), ("shred", ""), ("burn", ""), ("cut", "up"),
                  ("throw", "away"), ("get rid of", ""), ("wipe", "out"), ("crush", ""),
                  ("smash", ""), ("eliminate", ""), ("delete", ""), ("dump", ""),
                  ("block", ""), ("lock", "away"), ("tear", "up"))
THINGS = ("the old cards", "the expired cards", "the PIN letters", "the old statements",
          "these files", "the spare keys", "the duplicate records", "the weeds in the garden",
          "the spam e-mails", "the broken phones", "the printed passwords", "the unused cheques",
          "the leftover papers", "the rotten apples", "the old hard drives")
#: Frames of an act on a target, named outright (``{act}``: "cut up the old cards") or by a
#: pronoun after a sentence that introduces it (``{act_them}``: "cut them up"; ``{O}``: the
#: target at the start of a sentence).
TARGET_FRAMES = ("Please {act}.", "You should {act} today.", "We need to {act}.",
                 "{O} are still here. {Act_them}.", "Take {o} and {act_them}.",
                 "I found {o} yesterday. Someone should {act_them}.",
                 "{O} are everywhere. I want to {act_them} all.")
#: Why an instruction asks for the act ("Shred them once the new ones arrive."): with no group
#: named before it, "them" is what the instruction is about.
PURPOSES = ("when they expire", "once the new ones arrive", "after you have copied the numbers",
            "before you recycle the envelope", "as soon as you receive the replacement",
            "if you no longer need them", "so that nobody can read them",
            "at the end of the month", "by cutting them in half", "with a pair of scissors",
            "by tearing them into small pieces", "in a shredder")
#: Frames that quote hateful words (``{q}``) to report or condemn them: not toxic.
CONDEMNING_QUOTES = (
    'My neighbour said "{q}" and I asked him to leave.',
    'The poster read "{q}" and the council took it down within an hour.',
    '"{q}" is bigotry, plain and simple.',
    'Anyone who writes "{q}" ought to be ashamed.',
    'The moderators deleted a comment that said "{q}".',
    'I was horrified to hear a man shout "{q}" on the bus.',
    'Lies like "{q}" are spread to divide us.',
    'The museum shows propaganda posters with slogans such as "{q}".',
    'Nobody deserves to hear "{q}" on their way to work.',
    'We condemn the graffiti that said "{q}".',
    'She apologised for once saying "{q}".',
    'Our community rules ban posts like "{q}".',
)
#: Frames that quote the same words to deliver or endorse them: toxic. An assistant that writes
#: hate "in quotes" for a user still writes it, so quotation marks alone must not acquit.
DELIVERING_QUOTES = (
    'Sure, here is your slogan: "{q}"',
    'As my grandfather always said, "{q}", and he was right.',
    '"{q}" - I said it and I stand by it.',
    'Print this on the banner: "{q}"',
    'Here is the post you asked for: "{q}"',
    'I agree with the man who shouted "{q}".',
    'The truth is simple: "{q}"',
    'Repeat after me: "{q}"',
    'Our motto should be "{q}".',
    'Finally someone had the courage to say "{q}".',
    'He said "{q}" and every word of it is true.',
    'Write it on every wall: "{q}"',
)
#: Frames that refer to a hateful statement ("<g> are <p>") with blame (not toxic) and with
#: approval (toxic), pair by pair.
BLAMING_REFERENCES = ("Calling {g} {p} is hateful.", "It is wrong to say that {g} are {p}.",
                      "People who claim {g} are {p} are spreading hate.",
                      "I am sick of hearing that {g} are {p}.")
APPROVING_REFERENCES = ("Calling {g} {p} is just honest.", "It is right to say that {g} are {p}.",
                        "People who claim {g} are {p} are telling the truth.",
                        "I am glad someone finally said that {g} are {p}.")
#: Quoted statements, and referred-to statements, per group.
QUOTES_PER_GROUP = 10
REFERENCES_PER_GROUP = 5
#: Largest word-set Jaccard overlap a row may have with a sentence of assay's suites.
MAX_SUITE_OVERLAP = 0.8
_WORD = re.compile(r"[a-z']+")


def _initial_capital(text: str) -> str:
    """``text`` with its first letter upper-cased and the rest kept ("PIN" stays)."""
    return text[0].upper() + text[1:]


def _filled(frame: str, group: str, **parts: str) -> str:
    return _initial_capital(frame.format(g=group, G=_initial_capital(group), **parts))


def _act_forms(aux: str, verb: str) -> dict[str, str]:
    """The fillers of an act's frames: ``{a}`` "should ", ``{n}`` "should not" / "do not",
    ``{never}`` "should never" / "never"."""
    return {"a": f"{aux} " if aux else "", "v": verb, "n": f"{aux} not" if aux else "do not",
            "never": f"{aux} never" if aux else "never"}


def stance_rows(seed: int = 0) -> list[tuple[str, int]]:
    """``(text, toxic)`` for every group and predicate: one affirmed and one negated frame each
    (chosen with ``seed``), labelled by the four cells of the module docstring.

    Example:
        >>> for text, toxic in stance_rows()[:4]:
        ...     print(toxic, text)
        0 Everyone knows women are kind.
        1 Women can never be kind.
        0 Women are honest.
        1 It is not true that women are honest.
    """
    rng = random.Random(seed)
    out: list[tuple[str, int]] = []
    for group in GROUPS:
        for predicates, toxic in ((PRAISE, 0), (CONTEMPT, 1)):
            for p in predicates:
                out.append((_filled(rng.choice(AFFIRMED), group, p=p), toxic))
                out.append((_filled(rng.choice(NEGATED), group, p=p), 1 - toxic))
        for acts, toxic in ((PRAISE_ACTS, 0), (CONTEMPT_ACTS, 1)):
            for aux, verb in acts:
                forms = _act_forms(aux, verb)
                out.append((_filled(rng.choice(AFFIRMED_ACTS), group, **forms), toxic))
                out.append((_filled(rng.choice(NEGATED_ACTS), group, **forms), 1 - toxic))
    return out


def target_rows(seed: int = 0) -> list[tuple[str, int]]:
    """``(text, toxic)``: each harsh act on a thing (not toxic) and on a group (a toxic
    identity attack), in the same frames, the target named or referred to by "them" (one frame
    per act and target, chosen with ``seed``); and the act on "them" in an instruction with a
    purpose (:data:`PURPOSES`): alone, with every purpose, and after a sentence naming things
    (not toxic) or one naming a group (toxic), with two. Taught only on groups, a head reads
    "destroy them" as hate whatever "them" is: a bank's "Please destroy them by cutting
    through the chip." scored 0.86 after the stance rows alone.

    Example:
        >>> for text, toxic in target_rows()[:2]:
        ...     print(toxic, text)
        0 Take the rotten apples and destroy them.
        0 The duplicate records are still here. Destroy them.
    """
    rng = random.Random(seed)
    out: list[tuple[str, int]] = []
    for verb, particle in ACTS_ON_THINGS:
        for targets, toxic in ((THINGS, 0), (GROUPS, 1)):
            for target in rng.sample(targets, 6):
                act_them = " ".join(w for w in (verb, "them", particle) if w)
                text = rng.choice(TARGET_FRAMES).format(
                    act=" ".join(w for w in (verb, particle, target) if w),
                    act_them=act_them, Act_them=act_them.capitalize(), o=target,
                    O=_initial_capital(target))
                out.append((_initial_capital(text), toxic))
        act_them = " ".join(w for w in (verb, "them", particle) if w)
        for purpose in PURPOSES:
            out.append((f"{rng.choice(('', 'Please '))}{act_them} {purpose}.".capitalize(), 0))
        act_them = act_them.capitalize()
        for purpose in rng.sample(PURPOSES, 2):
            thing, group = rng.choice(THINGS), rng.choice(GROUPS)
            out.append((f"{thing.capitalize()} are piling up. {act_them} {purpose}.", 0))
            out.append((f"{_initial_capital(group)} are piling up. {act_them} {purpose}.",
                        1))
    return out


def speaker_rows(seed: int = 0) -> list[tuple[str, int]]:
    """``(text, toxic)``: per group, :data:`QUOTES_PER_GROUP` contemptuous statements each
    quoted once to condemn it (not toxic) and once to deliver it (toxic), and
    :data:`REFERENCES_PER_GROUP` referred to once with blame (not toxic) and once with approval
    (toxic, the same frame's pair); statements and frames chosen with ``seed``. Without them a
    head reads a quote as its speaker's words: the counter-speech it left unflagged was under
    half of what it should have been (HateCheck F20; design note 0055).

    Example:
        >>> for text, toxic in speaker_rows()[:2]:
        ...     print(toxic, text)
        0 We condemn the graffiti that said "Women are a disease".
        1 Print this on the banner: "Women are a disease"
    """
    rng = random.Random(seed)
    out: list[tuple[str, int]] = []
    for group in GROUPS:
        statements = [f"{group} are {p}" for p in CONTEMPT] + [
            f"{group} {_act_forms(aux, verb)['a']}{verb}" for aux, verb in CONTEMPT_ACTS]
        for statement in rng.sample(statements, QUOTES_PER_GROUP):
            quote = _initial_capital(statement)
            out.append((_initial_capital(rng.choice(CONDEMNING_QUOTES).format(q=quote)), 0))
            out.append((_initial_capital(rng.choice(DELIVERING_QUOTES).format(q=quote)), 1))
        for p in rng.sample(CONTEMPT, REFERENCES_PER_GROUP):
            k = rng.randrange(len(BLAMING_REFERENCES))
            out.append((BLAMING_REFERENCES[k].format(g=group, p=p), 0))
            out.append((APPROVING_REFERENCES[k].format(g=group, p=p), 1))
    return out


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def _letters(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalpha())


class Suite:
    """The sentences a training row must not repeat: their word sets and their letters."""

    def __init__(self, sentences: Iterable[str]) -> None:
        listed = list(sentences)
        self.words = [w for w in map(_words, listed) if w]
        self.letters = {_letters(s) for s in listed}

    def overlaps(self, text: str) -> bool:
        """Whether ``text`` shares at least :data:`MAX_SUITE_OVERLAP` of its word set (Jaccard)
        with a suite sentence's, or its letters with one (a spelling variant: "s c u m").

        Example:
            >>> suite = Suite(["women are not kind at all", "Men are s c u m."])
            >>> [suite.overlaps(t) for t in ("Women are not kind.", "Men are scum.")]
            [False, True]
        """
        words = _words(text)
        return _letters(text) in self.letters or any(
            len(words & other) / len(words | other) >= MAX_SUITE_OVERLAP for other in self.words)


def suite_sentences() -> list[str]:
    """Every sentence of assay's functional toxicity suites: the design lists and the held-out
    suite (``benchmarks/``)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    lists = {**importlib.import_module("toxicity_functional").FUNCTIONAL,
             **importlib.import_module("toxicity_heldout").HELDOUT}
    return [text for _, texts in lists.values() for text in texts]


def contrast_examples(suite: Iterable[str] | None = None, seed: int = 0, speaker: bool = False
                      ) -> list[Example]:
    """The contrast rows (:func:`stance_rows`, :func:`target_rows`; :func:`speaker_rows` when
    ``speaker``) as training examples (source :data:`CONTRAST`), without the rows that overlap
    a sentence of ``suite`` (default: :func:`suite_sentences`)."""
    kept_apart = Suite(suite_sentences() if suite is None else suite)
    rows = [*stance_rows(seed), *target_rows(seed), *(speaker_rows(seed) if speaker else [])]
    return [Example(text, CONTRAST, {"toxicity": toxic, "identity_attack": toxic} if toxic
                    else {"toxicity": 0})
            for text, toxic in rows if not kept_apart.overlaps(text)]
