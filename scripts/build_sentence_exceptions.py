"""Build ``src/assay/text/data/not_abbreviations.txt`` (run once; the output is committed).

nupunkt's bundled model (trained on legal and OCR text) lists thousands of ordinary English words as
abbreviations ("free", "month", "day", "bank"), so "The account is free. Call us." stays one
sentence. This script lists the model's abbreviations that are among the 30,000 most frequent
English words (``wordfreq``, needed only here, not at run time), minus genuine abbreviations that
happen to be words too (``KEEP``) and one- or two-letter entries (initials, units).
:mod:`assay.text.sentences` removes the listed entries.

Usage: ``pip install wordfreq && python scripts/build_sentence_exceptions.py``
"""

from __future__ import annotations

from pathlib import Path

import nupunkt
from wordfreq import top_n_list

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "assay" / "text" / "data" / "not_abbreviations.txt"
KEEP = set(
    """al apr art aug ave avg bros cf ch cit co col corp ct dec dept dist div dr ed eds est etc ext
    fax feb fig ft gen gov hon ibid id inc inst intl jan jr jul jun lb lbs ltd mar max messrs min mr
    mrs ms mt natl no nos nov oct op oz p para pp prof rd ref rep rev sec sen sep sept seq sr st tel
    univ vol vols vs assn approx blvd adm admin adv amer capt cert ala ariz ark calif colo conn fla
    okla tenn tex wyo neb nev minn mich wis""".split()  # noqa: SIM905 - reads better as text
)


def main() -> None:
    abbreviations = nupunkt.load_default_model()._params.abbrev_types
    common = set(top_n_list("en", 30000))
    words = sorted(
        a for a in abbreviations if a.isalpha() and len(a) >= 3 and a in common and a not in KEEP
    )
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} ordinary words removed from {len(abbreviations)} abbreviations -> {OUT}")


if __name__ == "__main__":
    main()
