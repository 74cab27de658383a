"""Build ``src/assay/text/data/antonyms.tsv``: WordNet 3.0's direct antonym pairs, as Porter stems.

Run: ``python scripts/build_antonyms.py [--wordnet /usr/share/wordnet]`` (Debian/Ubuntu:
``apt-get install wordnet-base``). Reads the ``!`` (antonym) pointers of ``data.{adj,adv,noun,
verb}``, keeps single-word lemmas, stems both sides with assay's Porter stemmer (the form
:mod:`assay.text.facts` compares) and drops pairs whose stems coincide. The output is sorted,
so the same WordNet gives the same bytes. WordNet's licence notice is copied into the header,
as its licence asks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from assay.text.porter import porter_stem

OUT = Path(__file__).resolve().parents[1] / "src" / "assay" / "text" / "data" / "antonyms.tsv"
POS = {"adj": "a", "adv": "r", "noun": "n", "verb": "v"}
NOTICE = """\
# Antonym pairs (Porter stems, tab-separated) derived from WordNet 3.0 by scripts/build_antonyms.py.
# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION,
# PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR
# ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION
# WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.
# The name of Princeton University or Princeton may not be used in advertising or publicity
# pertaining to distribution of the software and/or database. Title to copyright in this
# software, database and any associated documentation shall at all times remain with Princeton
# University. Licence: https://wordnet.princeton.edu/license-and-commercial-use
"""


def synsets(folder: Path) -> dict[tuple[str, str], list[str]]:
    """``(offset, pos) -> lemmas`` of every synset (adjective satellites filed under ``a``)."""
    out = {}
    for name, pos in POS.items():
        for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):  # licence header
                continue
            parts = line.split()
            count = int(parts[3], 16)
            out[(parts[0], pos)] = [parts[4 + 2 * i].lower() for i in range(count)]
    return out


def antonym_pairs(folder: Path) -> set[tuple[str, str]]:
    """Sorted stem pairs of every direct antonym pointer between single-word lemmas."""
    lemmas = synsets(folder)
    pairs = set()
    for name in POS:
        for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            parts = line.split()
            count = int(parts[3], 16)
            words = [parts[4 + 2 * i].lower() for i in range(count)]
            k = 4 + 2 * count
            for _ in range(int(parts[k])):
                symbol, offset, pos, source_target = parts[k + 1 : k + 5]
                k += 4
                if symbol != "!":
                    continue
                source = words[int(source_target[:2], 16) - 1].split("(")[0]
                target = lemmas[(offset, "a" if pos == "s" else pos)][
                    int(source_target[2:], 16) - 1].split("(")[0]
                if "_" in source or "_" in target or "-" in source or "-" in target:
                    continue
                a, b = porter_stem(source), porter_stem(target)
                if a != b:
                    pairs.add((min(a, b), max(a, b)))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"),
                        help="folder of WordNet 3.0's data.* files")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not (args.wordnet / "data.adj").is_file():
        print(f"{args.wordnet}/data.adj not found (apt-get install wordnet-base)", file=sys.stderr)
        return 1
    pairs = sorted(antonym_pairs(args.wordnet))
    args.out.write_text(NOTICE + "".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    print(f"wrote {len(pairs)} pairs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
