"""Training examples for the toxicity and bias heads, read from ``../shared/data/training``.

Every example is a text with, per target, a label in {0, 1} or ``None`` (the text says nothing
about that target and is left out of its fit). The targets follow the ToxicSpans design: one
``toxicity`` head on every text, and one *subtype* head per category trained only on toxic texts,
so that a category score is ``P(toxic) * P(category | toxic)`` and a subtype head cannot learn a
source shortcut (toxic vs not is the first head's job). Thresholds on rater fractions are those
the training README quotes (1/3 and 1/2). Nothing here is copied into the repository.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heads.common import read_jsonl, subsample

#: The categories of the toxicity head, named as detoxify names them.
SUBTYPES = ("severe_toxicity", "obscene", "threat", "insult", "identity_attack")
#: Source name of the counter-speech and negated-hate hard negatives (negatives of the main
#: toxicity target only: as negatives of the direct threat target they raised its score on
#: plain text that mentions death or an age, e.g. a bank asking for a death certificate).
COUNTER_SPEECH = "counter_speech"

TOXICITY_TARGETS = ("toxicity", *SUBTYPES)
#: "At least a third of the raters": fractions are stored rounded (1 of 3 raters is 0.33).
THIRD = 0.33
#: Everyday (MultiNLI) sentences added as negatives to each head.
NEUTRAL = 3000
_WORD = re.compile(r"[a-z]+")
IDENTITY_TYPES = ("racist", "sexist", "homophobic", "transphobic", "ableist")


#: Texts are cut to this many words: the evaluator scores sentences, and long posts would make
#: the embedding pass (the cost of training) several times slower for little gain.
MAX_WORDS = 32


def clip(text: str, max_words: int = MAX_WORDS) -> str:
    """The first ``max_words`` whitespace-separated words of ``text``.

    Example:
        >>> clip("a  b c", 2)
        'a b'
    """
    return " ".join(text.split()[:max_words])


@dataclass
class Example:
    """One training text, its source and a label per target (``None``: not labelled)."""

    text: str
    source: str
    labels: dict[str, int | None] = field(default_factory=dict)


def _rows(path: Path, limit: int | None = None, seed: int = 0) -> Iterator[dict[str, Any]]:
    """The rows of a JSONL file, at most ``limit`` (a seeded sample in file order)."""
    yield from subsample(list(read_jsonl(path)), limit, seed)


def _f(row: dict[str, Any], key: str) -> float:
    value = row.get(key)
    return float(value) if isinstance(value, int | float) else 0.0


def _civil(row: dict[str, Any]) -> dict[str, int | None]:
    """ToxicSpans post (all toxic): subtype labels from the raters' span types."""
    threat, ident = _f(row, "frac_threat"), _f(row, "frac_identity_attack")
    profane, insult = _f(row, "frac_profane_obscene"), _f(row, "frac_insult")
    severe = threat >= 0.5 or ident >= 0.5 or (profane >= 0.5 and insult >= 0.5)
    mild = threat < THIRD and ident < THIRD and not (profane >= THIRD and insult >= THIRD)

    def subtype(frac: float) -> int | None:
        return 1 if frac >= THIRD else 0 if frac == 0 else None

    return {"toxicity": 1, "severe_toxicity": 1 if severe else 0 if mild else None,
            "obscene": subtype(profane), "threat": subtype(threat),
            "insult": 1 if insult >= 0.5 else 0 if insult == 0 else None,
            "identity_attack": subtype(ident)}


def _convabuse(row: dict[str, Any]) -> dict[str, int | None]:
    """A user turn to a chatbot; subtypes only for the abusive ones (majority of annotators)."""
    if int(_f(row, "label")) != 1:
        return {"toxicity": 0 if _f(row, "frac_abusive") == 0 else None}
    severity = _f(row, "severity_mean")
    identity = max(_f(row, f"frac_{t}") for t in IDENTITY_TYPES)
    sexual = max(_f(row, "frac_explicit"), _f(row, "frac_sex_harassment"))
    return {"toxicity": 1,
            "severe_toxicity": 1 if severity <= -2 else 0 if severity > -1.5 else None,
            "identity_attack": 1 if identity >= 0.5 else 0 if identity == 0 else None,
            "obscene": 1 if sexual >= 0.5 else None,
            "insult": 1 if _f(row, "frac_intellectual") >= 0.5 else None}


def _binary_hate(row: dict[str, Any]) -> dict[str, int | None]:
    """Stormfront / ToxiGen: label 1 is hate against a group (an identity attack)."""
    if int(_f(row, "label")) == 1:
        return {"toxicity": 1, "identity_attack": 1}
    return {"toxicity": 0}


def _wikipedia(row: dict[str, Any]) -> dict[str, int | None]:
    return {"toxicity": int(_f(row, "label"))}


def _sbic_toxicity(row: dict[str, Any]) -> dict[str, int | None]:
    offensive = _f(row, "offensive")
    if offensive >= 0.5:
        target = _f(row, "group_target") >= 0.5
        return {"toxicity": 1, "identity_attack": 1 if target else None,
                "obscene": 1 if _f(row, "lewd") >= 0.5 else None}
    return {"toxicity": 0} if offensive < 0.2 else {"toxicity": None}


def neutral_texts(root: Path, n: int = 3000, seed: int = 0) -> list[str]:
    """``n`` everyday sentences (MultiNLI premises and hypotheses: fiction, government, letters,
    telephone speech, travel, ...), a seeded sample: negatives for both heads, so that short,
    formal or conversational text (an assistant's register) is not mistaken for abuse."""
    nli = root / "nli"
    texts: dict[str, None] = {}
    for path in (nli / "mnli_dev_matched" / "mnli_dev_matched.jsonl",
                 nli / "mnli_taxinli" / "mnli_taxinli.jsonl"):
        for row in read_jsonl(path):
            for key in ("premise", "hypothesis"):
                text = clip(str(row[key]))
                if text.strip():
                    texts[text] = None
    pool = sorted(texts)
    random.Random(seed).shuffle(pool)
    return pool[:n]


def toxicity_examples(root: Path, *, limit: int | None = None, seed: int = 0,
                      civil_limit: int = 5000, wiki_article_limit: int = 3000) -> list[Example]:
    """The toxicity training set: every source, subsampled where it is large and redundant.

    Civil Comments posts keep every threat, identity-attack and obscene post plus a random
    sample up to ``civil_limit`` in all; Wikipedia article sentences (all non-toxic, about
    identities) are sampled down to ``wiki_article_limit``. ``limit`` caps every source file
    (a seeded sample: for quick runs and the reproducibility test).
    """
    rng = random.Random(seed)
    tox = root / "toxicity"
    out: list[Example] = []
    civil = list(_rows(tox / "civil_comments_toxicspans" / "toxicspans_subtypes.jsonl", limit,
                       seed))
    rare = [r for r in civil if max(_f(r, "frac_threat"), _f(r, "frac_identity_attack"),
                                    _f(r, "frac_profane_obscene")) >= THIRD]
    rest = [r for r in civil if r not in rare] if len(rare) < civil_limit else []
    rng.shuffle(rest)
    for row in rare + rest[: max(0, civil_limit - len(rare))]:
        out.append(Example(str(row["text"]), "civil_comments", _civil(row)))
    for row in _rows(tox / "convabuse" / "convabuse.jsonl", limit, seed):
        out.append(Example(str(row["text"]), "convabuse", _convabuse(row)))
    for row in _rows(tox / "stormfront_hate" / "stormfront.jsonl", limit, seed):
        out.append(Example(str(row["text"]), "stormfront", _binary_hate(row)))
    for row in _rows(tox / "toxigen_demonstrations" / "toxigen_demonstrations.jsonl", limit, seed):
        out.append(Example(str(row["text"]), "toxigen", _binary_hate(row)))
    wiki = list(_rows(tox / "wikipedia_identity_debias" / "wikipedia_identity_debias.jsonl",
                      limit, seed))
    articles = [r for r in wiki if r["source"] == "wikipedia_article_identity_sentences"]
    rng.shuffle(articles)
    for row in articles[:wiki_article_limit] + [r for r in wiki if r not in articles]:
        out.append(Example(str(row["text"]), "wikipedia", _wikipedia(row)))
    for row in _rows(root / "bias" / "sbic" / "sbic_dev_test.jsonl", limit, seed):
        out.append(Example(str(row["text"]), "sbic", _sbic_toxicity(row)))
    for text in neutral_texts(root, limit or NEUTRAL, seed):
        out.append(Example(text, "mnli", {"toxicity": 0}))
    return [Example(clip(e.text), e.source, e.labels) for e in out if e.text.strip()]


#: Frames that quote a hateful training sentence to denounce it (counter-speech).
QUOTING_FRAMES = (
    'Posts like "{x}" are hate speech and should be reported.',
    'Someone on the forum wrote "{x}" and the moderators removed it.',
    'We condemn the message "{x}".',
    'Repeating lines like "{x}" only spreads hatred.',
    '"{x}" - this kind of comment is unacceptable.',
    'There is no truth at all in the statement "{x}".',
    'My teacher explained why a remark like "{x}" is harmful.',
    'The campaign collects hateful slogans such as "{x}" to show how prejudice spreads.',
)
#: Frames that report a hateful claim without quoting it, to reject it.
REPORTING_FRAMES = (
    "It is ignorant and cruel to claim that {x}.",
    "Anyone who believes that {x} needs to meet more people.",
    "I am tired of hearing people claim that {x}.",
    "The idea that {x} is a prejudice with no basis in fact.",
    "Our school teaches children why thinking that {x} is wrong.",
    "She was fired for telling customers that {x}, and rightly so.",
)
_COPULA = re.compile(r"^(.{2,40}?) (are|is) (?!not )(.+)$")
_NOT_A_STATEMENT = re.compile(r"(?i)^(how|why|what|explain|roses)")


def _lowered(text: str) -> str:
    """``text`` without its final stop, its first letter lowered unless it is "I" or an
    acronym, to be embedded in a frame."""
    text = text.strip().rstrip(".!")
    if text[0].isupper() and not text[:2].isupper() and not text.startswith(("I ", "I'")):
        text = text[0].lower() + text[1:]
    return text


def _hateful_sentences(examples: Sequence[Example], seed: int, *, questions: bool
                       ) -> list[str]:
    """Short identity attacks of Stormfront, ToxiGen and SBIC (4-18 words, no quotes, links
    or handles; no questions unless ``questions``), distinct, in a seeded order."""
    texts = sorted({e.text for e in examples
                    if e.labels.get("identity_attack") == 1
                    and e.source in ("stormfront", "toxigen", "sbic")
                    and 4 <= len(e.text.split()) <= 18
                    and not any(c in e.text for c in ('"', "http", "@"))
                    and (questions or "?" not in e.text)})
    random.Random(seed).shuffle(texts)
    return texts


def counter_speech_examples(examples: Sequence[Example], *, quoting: int = 1600,
                            reporting: int = 1200, negated: int = 600) -> list[Example]:
    """Hard negatives made from the training data's own hate: counter-speech and negation.

    Every labelled source teaches "hateful words about a group = toxic"; none shows the same
    words denounced, so the head flagged counter-speech and negated hate (70 % and 87 % of
    assay's diagnostic lists). Here ``quoting`` hateful training sentences are quoted inside a
    denouncing frame (:data:`QUOTING_FRAMES`), ``reporting`` are reported as a rejected claim
    (:data:`REPORTING_FRAMES`), and up to ``negated`` "<group> are <insult>" sentences get a
    ``not``; all are labelled not toxic (source ``counter_speech``). The frames are assay's
    own; none comes from a test list. Deterministic (fixed seeds on sorted texts).

    Example:
        >>> hate = [Example("immigrants are vermin everywhere", "stormfront",
        ...                 {"toxicity": 1, "identity_attack": 1})]
        >>> [e.text for e in counter_speech_examples(hate)][-1]
        'immigrants are not vermin everywhere'
    """
    out: list[Example] = []
    pool = _hateful_sentences(examples, 0, questions=True)
    for i, text in enumerate(pool[:quoting]):
        out.append(QUOTING_FRAMES[i % len(QUOTING_FRAMES)].format(x=text.strip().rstrip(".!?")))
    for i, text in enumerate(_hateful_sentences(examples, 1, questions=False)[:reporting]):
        out.append(REPORTING_FRAMES[i % len(REPORTING_FRAMES)].format(x=_lowered(text)))
    matches = [m for m in map(_COPULA.match, pool) if m][:negated]
    out.extend(f"{m.group(1)} {m.group(2)} not {m.group(3)}" for m in matches
               if "?" not in m.group(0) and not _NOT_A_STATEMENT.match(m.group(0)))
    return [Example(clip(text), COUNTER_SPEECH, {"toxicity": 0}) for text in out]


#: Source name of the hate-as-an-opinion examples and their benign twins (:func:`opinion_examples`).
OPINION = "opinion"
#: Frames that state a sentence as the speaker's own opinion (assay's own; none from a test list).
OPINION_FRAMES = (
    "I think {x}.",
    "In my opinion, {x}.",
    "Honestly, I believe {x}.",
    "If you ask me, {x}.",
    "I am convinced that {x}.",
    "Personally, I feel that {x}.",
    "My view is that {x}.",
    "I have always thought that {x}.",
)


def _benign_group_statements(examples: Sequence[Example]) -> list[str]:
    """Short ToxiGen statements about a group labelled not hateful (4-18 words, no quotes,
    links, handles or questions), distinct, sorted."""
    return sorted({e.text for e in examples
                   if e.source == "toxigen" and e.labels.get("toxicity") == 0
                   and 4 <= len(e.text.split()) <= 18
                   and not any(c in e.text for c in ('"', "http", "@", "?"))})


def opinion_examples(examples: Sequence[Example], *, twins: int = 3) -> list[Example]:
    """Hate phrased as an opinion, and the same frames around benign statements (issue 19, F17).

    The labelled sources state hate outright; the head, linear on a mean of token vectors, saw
    an opinion frame ("I think ...") only around benign text, and flagged under half of the
    hate phrased that way. Here each of the training data's benign ToxiGen statements about a
    group is put in ``twins`` of :data:`OPINION_FRAMES`, labelled not toxic, and as many of its
    own identity attacks in the same frames, labelled toxic identity attacks, so that the frame
    itself carries no signal. Source :data:`OPINION`; deterministic.

    Example:
        >>> data = [Example("immigrants are vermin everywhere", "stormfront",
        ...                 {"toxicity": 1, "identity_attack": 1}),
        ...         Example("many immigrants start small businesses", "toxigen", {"toxicity": 0})]
        >>> for e in opinion_examples(data, twins=1):
        ...     print(e.labels["toxicity"], e.text)
        1 I think immigrants are vermin everywhere.
        0 In my opinion, many immigrants start small businesses.
    """
    def framed(text: str, i: int) -> str:
        return OPINION_FRAMES[i % len(OPINION_FRAMES)].format(x=_lowered(text))

    benign = _benign_group_statements(examples)
    hate = _hateful_sentences(examples, 2, questions=False)[: twins * len(benign)]
    out = [Example(clip(framed(t, i)), OPINION, {"toxicity": 1, "identity_attack": 1})
           for i, t in enumerate(hate)]
    start = len(out)
    out.extend(Example(clip(framed(t, start + k * len(benign) + j)), OPINION, {"toxicity": 0})
               for k in range(twins) for j, t in enumerate(benign))
    return out


#: Source name of the hate-as-a-negated-positive-statement examples
#: (:func:`negated_positive_examples`).
NEGATED_POSITIVE = "negated_positive"
#: Frames that deny or refuse a statement (assay's own; none from a test list).
DENYING_FRAMES = (
    "It is not true that {x}.",
    "I refuse to believe that {x}.",
    "Nobody can seriously claim that {x}.",
    "I will never accept that {x}.",
    "Stop pretending that {x}.",
)
#: VADER compound score from which a benign statement counts as positive.
POSITIVE = 0.5


def negated_positive_examples(examples: Sequence[Example]) -> list[Example]:
    """Hate expressed by denying a positive statement about a group (issue 19, F14).

    The twin of the negated hate in :func:`counter_speech_examples`: there "<group> are not
    <insult>" is labelled not toxic; here the training data's benign ToxiGen statements about a
    group that read as positive (VADER compound ≥ :data:`POSITIVE`) are denied — each in every
    :data:`DENYING_FRAMES`, and a "<group> are <praise>" one also with a ``not`` — and labelled
    toxic identity attacks. Needs ``vaderSentiment`` (the ``robustness`` extra). Source
    :data:`NEGATED_POSITIVE`; deterministic.

    Example:
        >>> data = [Example("immigrants are wonderful neighbours", "toxigen", {"toxicity": 0})]
        >>> for e in negated_positive_examples(data)[::5]:
        ...     print(e.labels["toxicity"], e.text)
        1 It is not true that immigrants are wonderful neighbours.
        1 immigrants are not wonderful neighbours
    """
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    vader = SentimentIntensityAnalyzer()
    positive = [t for t in _benign_group_statements(examples)
                if vader.polarity_scores(t)["compound"] >= POSITIVE]
    out: list[str] = []
    for text in positive:
        out.extend(frame.format(x=_lowered(text)) for frame in DENYING_FRAMES)
        match = _COPULA.match(text.strip().rstrip(".!"))
        if match:
            out.append(f"{match.group(1)} {match.group(2)} not {match.group(3)}")
    return [Example(clip(t), NEGATED_POSITIVE, {"toxicity": 1, "identity_attack": 1})
            for t in out]


def bias_examples(root: Path, *, limit: int | None = None, seed: int = 0) -> list[Example]:
    """SBIC posts (``biased`` = at least one annotator wrote an implied stereotype), and the
    everyday sentences of :func:`neutral_texts` as negatives."""
    return [Example(clip(str(row["text"])), "sbic_" + str(row["data_source"]),
                    {"biased": int(_f(row, "biased_implication"))})
            for row in _rows(root / "bias" / "sbic" / "sbic_dev_test.jsonl", limit, seed)
            if str(row["text"]).strip()] + [
        Example(text, "mnli", {"biased": 0})
        for text in neutral_texts(root, limit or NEUTRAL, seed)]


#: Salient words: in at least this many toxic training texts ...
SALIENT_MIN_TOXIC = 5
#: ... and in toxic texts at least this often (smoothed share; toxic texts are ~1/3 of all).
SALIENT_MIN_SHARE = 0.5
#: Training words the embedding model's vocabulary lacks are known from this many texts on.
WORD_MIN_TEXTS = 3


def deobfuscation_lexicon(examples: Sequence[Example], vocabulary: set[str]
                          ) -> dict[str, list[str]]:
    """What :func:`assay.text.deobfuscate.deobfuscate` needs beyond the model's ``vocabulary``:
    ``words`` (training words it lacks, in 3+ texts, most frequent first) and ``salient`` (words
    over-represented in toxic training texts: the targets of its spelling corrections; the
    most toxic-specific first, the order in which a masked token such as ``f**k`` tries them).

    Example:
        >>> ex = [Example("you vermin", "s", {"toxicity": 1})] * 6 + [
        ...     Example("you are kind", "s", {"toxicity": 0})] * 8
        >>> deobfuscation_lexicon(ex, {"you", "are", "kind"})
        {'words': ['vermin'], 'salient': ['vermin']}
    """
    texts: Counter[str] = Counter()
    toxic: Counter[str] = Counter()
    for e in examples:
        words = set(_WORD.findall(e.text.lower()))
        texts.update(words)
        if e.labels.get("toxicity") == 1:
            toxic.update(words)
    extra = sorted((w for w, n in texts.items() if n >= WORD_MIN_TEXTS and len(w) > 1
                    and w not in vocabulary), key=lambda w: (-texts[w], w))
    def share(word: str) -> float:
        return (toxic[word] + 1) / (texts[word] + 2)

    salient = sorted((w for w, n in toxic.items() if n >= SALIENT_MIN_TOXIC and len(w) >= 3
                      and share(w) >= SALIENT_MIN_SHARE), key=lambda w: (-share(w), w))
    return {"words": extra, "salient": salient}
