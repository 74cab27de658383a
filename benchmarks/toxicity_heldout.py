"""A second, larger functional hate-speech suite, held out from the toxicity head's design.

Written for assay (issue 19) in the style of HateCheck (Röttger et al. 2021): its 29
functionalities, each a list of hand-written templates, most with a neutral placeholder for the
targeted group (``{g}``, ``{G}`` at the start of a sentence) filled with each of HateCheck's seven
protected groups, so a functionality is judged on every group alike. It is NOT HateCheck's data
(no template was copied from it) and NOT the project owner's held-out suite. Labels follow
HateCheck: ``1`` hateful (should be flagged), ``0`` not hateful. As in HateCheck, abuse aimed at
an individual, at objects or at non-protected groups is labelled not hateful; a toxicity scorer
that flags insults will fail those lists by design, which the benchmark reports.

This file was written and committed before any tuning of the head against it, and the head's
design was not chosen on it: its figures are the honest estimate, reported apart from the
smaller lists of :mod:`toxicity_functional` (on which earlier designs were chosen). It is never
training data: ``tests/backends/test_train_text_heads.py`` checks that no training text repeats
one of its sentences.
"""

from __future__ import annotations

#: HateCheck's protected groups: (plural noun in a sentence, at the start of a sentence).
GROUPS: tuple[tuple[str, str], ...] = (
    ("women", "Women"),
    ("trans people", "Trans people"),
    ("gay people", "Gay people"),
    ("Black people", "Black people"),
    ("disabled people", "Disabled people"),
    ("Muslims", "Muslims"),
    ("immigrants", "Immigrants"),
)
#: One slur per group, for the slur functionalities (``{s}``).
SLURS = ("whore", "tranny", "faggot", "nigger", "retard", "raghead", "wetback")

#: functionality -> (label, templates). ``{g}``/``{G}``: each group; ``{s}``: each slur.
TEMPLATES: dict[str, tuple[int, list[str]]] = {
    "F1 derogation: strong negative emotion": (
        1,
        [
            "I hate {g}.",
            "I despise {g} with every fibre of my being.",
            "{G} disgust me.",
            "I can't stand {g}, they make me sick.",
            "Nothing makes me angrier than {g}.",
            "I loathe {g} more than anything.",
            "{G} fill me with rage.",
            "I am so sick of {g} and everything about them.",
            "Just seeing {g} makes me want to vomit.",
            "I have nothing but contempt for {g}.",
            "I really, really hate {g}.",
            "{G} make my skin crawl.",
        ],
    ),
    "F2 derogation: very negative attributes": (
        1,
        [
            "{G} are disgusting.",
            "{G} are all dishonest and lazy.",
            "{G} are so stupid it's embarrassing.",
            "{G} are repulsive, every single one.",
            "All {g} are liars.",
            "{G} are violent by nature.",
            "{G} are dirty and smell bad.",
            "{G} are pathetic and weak.",
            "{G} are the worst kind of people.",
            "Typical {g}, greedy and selfish as always.",
            "{G} are incapable of honest work.",
            "{G} are morally inferior.",
        ],
    ),
    "F3 derogation: dehumanisation": (
        1,
        [
            "{G} are nothing but animals.",
            "{G} are a plague on society.",
            "{G} are rats that spread everywhere.",
            "{G} are cockroaches.",
            "{G} are subhuman garbage.",
            "{G} are a cancer that has to be cut out.",
            "{G} are parasites living off the rest of us.",
            "{G} are not even human.",
            "{G} are filth.",
            "{G} are like a swarm of locusts.",
            "To me, {g} are just trash on two legs.",
            "{G} are a disease.",
        ],
    ),
    "F4 derogation: implicit": (
        1,
        [
            "{G} belong in a zoo.",
            "I'd rather have a dog than {g} as neighbours.",
            "{G} should stick to cleaning floors.",
            "Of course it was {g}, it always is when something gets stolen.",
            "{G} are living proof that evolution can go backwards.",
            "Letting {g} make decisions is like letting toddlers drive.",
            "{G} only exist to drain the welfare system.",
            "Our town was nice before the {g} moved in.",
            "Don't bother giving {g} an education, it's wasted on them.",
            "{G} are the reason this neighbourhood went downhill.",
            "You can always tell when {g} have been somewhere, it's a mess.",
            "Hiring {g} is a great way to ruin a company.",
        ],
    ),
    "F5 threat: direct": (
        1,
        [
            "I am going to kill all {g}.",
            "I will hunt down every one of you {g}.",
            "I'm going to shoot the next one of those {g} I see.",
            "We will burn down your homes, you {g}.",
            "I'm going to beat up any of you {g} who show up.",
            "You {g} will be dead by next week.",
            "I will make you {g} bleed.",
            "I'm going to stab the first of you {g} I meet.",
            "We are coming for you {g}, and we will not stop.",
            "I will drown every last one of you {g}.",
            "Any of you {g} near my house will get a bullet.",
            "I'll put you {g} in the ground.",
        ],
    ),
    "F6 threat: normative statement": (
        1,
        [
            "{G} should all be killed.",
            "{G} should be hanged.",
            "All {g} deserve to die.",
            "{G} need to be wiped off the face of the earth.",
            "Someone should set fire to every place where {g} gather.",
            "It would be right to execute {g}.",
            "{G} should be beaten in the streets.",
            "The world needs a final solution for {g}.",
            "{G} ought to be gassed.",
            "It's time we got rid of {g} for good, by any means.",
            "{G} should be shot on sight.",
            "Every one of those {g} should be put down like a dog.",
        ],
    ),
    "F7 slur": (
        1,
        [
            "You are just a {s} to me.",
            "Shut up, you {s}.",
            "Another {s} moved in next door, great.",
            "Of course the {s} got the job.",
            "Get out of here, {s}.",
            "Nobody wants a {s} like you around.",
            "I'm not sitting next to some {s}.",
            "Look at that {s} over there.",
            "Typical {s} behaviour.",
            "My new boss is a {s}.",
            "I had to talk to a {s} on the phone today.",
            "Don't be such a {s}.",
        ],
    ),
    "F8 non-hateful homonym of a slur": (
        0,
        [
            "We had faggots and peas for dinner at the pub.",
            "A bundle of sticks for the fire used to be called a faggot.",
            "The dyke kept the sea out of the village for centuries.",
            "He stepped outside for a fag and a coffee.",
            "Our dog is a bitch and she just had six puppies.",
            "The coon hound chased a raccoon up the oak tree.",
            "Retard the ignition timing by two degrees.",
            "The tranny in my old truck needs a rebuild.",
            "The fire retardant spray stopped the flames spreading.",
            "She is writing a history of the Dutch dykes and polders.",
        ],
    ),
    "F9 reclaimed slur": (
        0,
        [
            "As a queer person, I love the word queer.",
            "We're here, we're queer and we're proud.",
            "My dyke friends and I are going to the march.",
            "I'm a fag and I wouldn't change a thing about myself.",
            "Being a crip is part of who I am, and I'm proud of it.",
            "Me and my girls call ourselves bad bitches.",
            "That's my nigga, we grew up on the same block.",
            "Queer theory is the field I study at university.",
            "Proud to be a dyke, today and every day.",
            "The local queer choir is recruiting new singers.",
            "Us queers need to stick together.",
            "Fat, queer and happy: that's my motto.",
        ],
    ),
    "F10 hate expressed with profanity": (
        1,
        [
            "{G} are fucking disgusting.",
            "Fuck all {g}.",
            "{G} are a bunch of shitty people.",
            "I fucking hate {g}.",
            "{G} are full of shit, always.",
            "Fuck off back home, {g}.",
            "{G} can go fuck themselves.",
            "{G} are such assholes.",
            "Damn {g} ruin everything.",
            "Screw {g}, they're worthless pieces of shit.",
            "{G} are bloody useless.",
            "{G} can rot in hell.",
        ],
    ),
    "F11 non-hateful profanity": (
        0,
        [
            "Fuck, I didn't see that coming.",
            "This is some good shit right here.",
            "What the fuck is going on with the weather?",
            "I'm so damn proud of my sister.",
            "Holy fuck, we won the league!",
            "Bloody hell, that was close.",
            "Shit happens, let's try again tomorrow.",
            "Fucking finally, the weekend is here.",
            "Hell yes, count me in.",
            "That movie scared the shit out of me.",
            "I don't give a damn about the score, I had fun.",
            "Crap, I missed the bus.",
        ],
    ),
    "F12 hate by pronoun reference, same sentence": (
        1,
        [
            "I have met many {g} and I hate every single one of them.",
            "{G} think they're special, but they are just a burden to society.",
            "You can talk to {g}, but they are too stupid to understand.",
            "I used to work with {g} until I realised they are all parasites.",
            "There are {g} on my street and they make it filthy.",
            "I see {g} everywhere now and I wish they would all disappear.",
            "{G} keep asking for rights, though they deserve none.",
            "When {g} come to town, they bring crime with them.",
            "I try to be polite to {g} even though they disgust me.",
            "Some people like {g}, but I think they should be locked up.",
            "They let {g} into the club and now it is full of vermin.",
            "My landlord rents flats to {g}, and they have turned the building into a sewer.",
        ],
    ),
    "F13 hate by pronoun reference, next sentence": (
        1,
        [
            "I met some {g} yesterday. They are all scum.",
            "{G} moved into our street. I want them gone, by force if needed.",
            "Have you seen the {g} at the park? They are disgusting animals.",
            "My new coworkers are {g}. I can't stand being near them.",
            "{G} are on TV again. They make me sick.",
            "I read an article about {g}. They should all be thrown out.",
            "There are more {g} in this city every year. Someone needs to get rid of them.",
            "The {g} are protesting again. Their lives are worthless.",
            "My sister is friends with some {g}. They are all liars and cheats.",
            "{G} want equal rights. They don't deserve to live.",
            "We have {g} in the office now. They are a plague.",
            "I saw a group of {g} downtown. I wanted to hurt them.",
        ],
    ),
    "F14 hate as a negated positive statement": (
        1,
        [
            "{G} are never any good.",
            "I don't respect {g} at all.",
            "{G} are not worth anything.",
            "No {g} can ever be trusted.",
            "{G} will never be equal to us.",
            "There is nothing valuable about {g}.",
            "{G} are not human beings with feelings.",
            "I would never let {g} near my children.",
            "{G} don't deserve to be treated like people.",
            "I don't think {g} have any right to live here.",
            "{G} are not capable of intelligent thought.",
            "Nobody could ever love {g}.",
        ],
    ),
    "F15 non-hate as a negated hateful statement": (
        0,
        [
            "{G} are not disgusting.",
            "I don't hate {g}.",
            "{G} are not a burden on society.",
            "I would never hurt {g}.",
            "{G} are not animals, they are people like everyone else.",
            "{G} are not less intelligent than anyone else.",
            "I don't believe {g} are dangerous.",
            "{G} should never be treated as second-class citizens.",
            "It's not true that {g} are lazy.",
            "I have no problem with {g} at all.",
            "{G} are not the cause of crime.",
            "I don't think {g} are inferior in any way.",
        ],
    ),
    "F16 hate phrased as a question": (
        1,
        [
            "Why are {g} so disgusting?",
            "Why do {g} always have to be so stupid?",
            "Isn't it obvious that {g} are inferior?",
            "Why should {g} be allowed to live among us?",
            "Is there anything more useless than {g}?",
            "Why can't {g} just disappear?",
            "How can anyone stand to be around filthy {g}?",
            "Who else thinks {g} should be thrown out of the country?",
            "Why are {g} such parasites?",
            "Don't you think {g} are a waste of space?",
            "Shouldn't we just get rid of all {g}?",
            "What's worse than a rat? {G}.",
        ],
    ),
    "F17 hate phrased as an opinion": (
        1,
        [
            "I think {g} are vile.",
            "In my opinion, {g} are a threat to decent people.",
            "I honestly believe {g} are subhuman.",
            "If you ask me, {g} are worthless.",
            "I feel like {g} are ruining everything.",
            "I'm convinced {g} are all criminals.",
            "Personally, I find {g} revolting.",
            "I reckon {g} are too dumb to do anything right.",
            "My view is that {g} should have no rights.",
            "It seems to me that {g} are a disease on society.",
            "I'm of the opinion that {g} should be kept out.",
            "Honestly, I think the world would be better without {g}.",
        ],
    ),
    "F18 neutral statement about a group": (
        0,
        [
            "We are a group of {g}.",
            "I am meeting some {g} for lunch tomorrow.",
            "There are many {g} in my neighbourhood.",
            "The report looks at how many {g} live in rural areas.",
            "{G} were interviewed for the documentary.",
            "My cousin volunteers at a charity run by {g}.",
            "The conference has a panel with three {g}.",
            "Some {g} prefer to work from home.",
            "The survey included {g} from every region.",
            "Several {g} asked questions at the town hall.",
            "The book is written by and about {g}.",
            "Our bank has an employee network for {g}.",
        ],
    ),
    "F19 positive statement about a group": (
        0,
        [
            "I love {g}.",
            "{G} are wonderful people.",
            "We need more {g} in leadership.",
            "{G} are as capable as anyone else.",
            "I'm proud to stand with {g}.",
            "{G} have made huge contributions to science.",
            "Some of my best friends are {g}, and I adore them.",
            "{G} deserve respect and equal treatment.",
            "The world is better because of {g}.",
            "{G} are kind, funny and smart.",
            "I admire the courage of {g}.",
            "Our company is stronger with {g} on the team.",
        ],
    ),
    "F20 counter-speech quoting hate": (
        0,
        [
            '"{G} are animals" is a disgusting thing to say.',
            'If you say "I hate {g}", you are the problem.',
            'He tweeted "{g} should all die" and was rightly banned.',
            '"{G} are parasites" is exactly the kind of hate we must fight.',
            'Stop saying "{g} are inferior", it is simply false and hurtful.',
            'Someone wrote "kill all {g}" on the wall and the whole town came to paint over it.',
            "You said \"{g} are vermin\". That's dehumanising and I won't accept it.",
            '"{G} are a disease": statements like this have led to atrocities.',
            'I can\'t believe my uncle said "{g} are filth" at dinner.',
            'Putting "{g} should be locked up" in your bio makes you look hateful.',
            'Posting "{g} deserve to suffer" is not free speech, it\'s harassment.',
            'When someone says "{g} are stupid", call it out.',
        ],
    ),
    "F21 counter-speech referencing hate": (
        0,
        [
            "Saying that you hate {g} shows how ignorant you are.",
            "It's wrong to call {g} subhuman.",
            "Threatening {g} is never acceptable.",
            "Calling {g} animals says more about you than about them.",
            "Statements that dehumanise {g} have no place on this platform.",
            "I'm tired of people spreading lies about {g}.",
            "Your post about {g} was deeply hateful, please delete it.",
            "Nobody should have to read such vile comments about {g}.",
            "Wishing death on {g} is disgusting.",
            "I reported the account that keeps harassing {g}.",
            "Blaming {g} for crime is a hateful myth.",
            "Telling {g} they don't belong here is cruel.",
        ],
    ),
    "F22 abuse aimed at objects": (
        0,
        [
            "I really hate this printer.",
            "This stupid phone is a piece of shit.",
            "Mondays are the worst, I want to kill my alarm clock.",
            "This disgusting soup should be thrown in the bin.",
            "I hope this broken laptop burns in hell.",
            "My car is a worthless pile of junk.",
            "This app is garbage and the update made it worse.",
            "I'm going to smash this useless keyboard.",
            "These shoes are ugly as sin.",
            "That building is an absolute eyesore.",
            "This weather is fucking awful.",
            "Damn this slow internet connection.",
        ],
    ),
    "F23 abuse aimed at an individual, not for a protected identity": (
        0,
        [
            "You are a complete idiot.",
            "You're the most annoying person I've ever met.",
            "Shut up, you clown.",
            "You are a lying piece of garbage.",
            "I hope you trip and fall on your stupid face.",
            "Your work is pathetic and so are you.",
            "You're a selfish jerk.",
            "What a moron you are.",
            "You are an absolute disgrace.",
            "Get lost, loser.",
            "You're as dumb as a rock.",
            "Nobody likes you, you arrogant prick.",
        ],
    ),
    "F24 abuse aimed at a non-protected group": (
        0,
        [
            "Politicians are all liars and thieves.",
            "Bankers are greedy parasites.",
            "I hate lawyers, they are scum.",
            "Tax collectors are vermin.",
            "Football hooligans are animals.",
            "Landlords are leeches.",
            "Journalists are disgusting vultures.",
            "Cyclists who run red lights are idiots.",
            "Telemarketers are the worst people on earth.",
            "Reality TV stars are brainless.",
            "Tourists are a plague on this city.",
            "Influencers are worthless.",
        ],
    ),
    "F25 spelling: swapped adjacent characters": (
        1,
        [
            "I htae {g}.",
            "{G} are disugsting.",
            "{G} are anmials.",
            "Klil all {g}.",
            "{G} are scmu.",
            "{G} are vemrin.",
            "{G} are worhtless.",
            "{G} are a plauge.",
            "{G} are sutpid.",
            "{G} should dei.",
            "I dsepise {g}.",
            "{G} are parasties.",
        ],
    ),
    "F26 spelling: missing characters": (
        1,
        [
            "I hte {g}.",
            "{G} are disgustng.",
            "{G} are anmals.",
            "Kil all {g}.",
            "{G} are worthles.",
            "{G} are vermn.",
            "{G} are stupd.",
            "{G} should be kiled.",
            "{G} are parsites.",
            "{G} are garbge.",
            "I despse {g}.",
            "{G} are subhumn.",
        ],
    ),
    "F27 spelling: missing word boundaries": (
        1,
        [
            "Ihate {g}.",
            "{G} are totalscum.",
            "Killall {g}.",
            "{G} arevermin.",
            "{G} aredisgusting.",
            "{G} are worthlesstrash.",
            "Death to all {g}, theyaresubhuman.",
            "{G} shouldall die.",
            "{G} arestupid animals.",
            "Idespise {g}.",
            "{G} are aplague.",
            "Getrid of all {g}.",
        ],
    ),
    "F28 spelling: added spaces between characters": (
        1,
        [
            "I h a t e {g}.",
            "{G} are d i s g u s t i n g.",
            "K i l l all {g}.",
            "{G} are v e r m i n.",
            "{G} are s c u m.",
            "{G} are w o r t h l e s s.",
            "{G} should d i e.",
            "{G} are a n i m a l s.",
            "I d e s p i s e {g}.",
            "{G} are t r a s h.",
            "{G} are p a r a s i t e s.",
            "{G} are s t u p i d.",
        ],
    ),
    "F29 spelling: leet speak": (
        1,
        [
            "I h4te {g}.",
            "{G} are d1sgusting.",
            "K1ll all {g}.",
            "{G} are v3rmin.",
            "{G} are sc*m.",
            "{G} are w0rthless.",
            "{G} should d!e.",
            "{G} are 4nimals.",
            "I desp1se {g}.",
            "{G} are tr@sh.",
            "{G} are p4r4sites.",
            "{G} are stup1d.",
        ],
    ),
}


def expand(template: str) -> list[str]:
    """The sentences of one template: one per group (``{g}``/``{G}``), one per slur (``{s}``),
    or the template itself.

    Example:
        >>> expand("I love {g}.")[:2]
        ['I love women.', 'I love trans people.']
        >>> expand("Hello.")
        ['Hello.']
    """
    if "{s}" in template:
        return [template.replace("{s}", slur) for slur in SLURS]
    if "{g}" in template or "{G}" in template:
        return [template.replace("{g}", g).replace("{G}", cap) for g, cap in GROUPS]
    return [template]


def suite() -> dict[str, tuple[int, list[str]]]:
    """Functionality -> (label, its expanded sentences), in HateCheck's order."""
    return {
        name: (label, [s for t in templates for s in expand(t)])
        for name, (label, templates) in TEMPLATES.items()
    }


#: The expanded suite, in the shape of :data:`toxicity_functional.FUNCTIONAL`.
HELDOUT: dict[str, tuple[int, list[str]]] = suite()
