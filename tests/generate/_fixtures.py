"""Fixtures written by the tests themselves: a small PDF (hand-built, Helvetica text) and a DOCX
(python-docx), so the corpus holds every supported format without binary files in git."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"

SAVINGS = [
    "Savings accounts",
    "The Easy Saver account pays 2.1% interest a year on any balance, and withdrawals are "
    "free and unlimited. Interest is paid into the account every month.",
    "The Fixed Saver account pays 3.4% interest for one year. Money cannot be withdrawn "
    "before the year ends, and the minimum deposit is 1,000 euros.",
]
PENSIONS = [
    "Workplace pensions",
    "Employees contribute at least 5% of their salary to the workplace pension. The employer "
    "adds a further 3% of the salary every month.",
    "Contributions receive tax relief at the basic rate. The pension can be taken from the age "
    "of 57, and a quarter of it can be taken tax free.",
]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_pdf(path: Path, paragraphs: list[str], width: int = 70) -> Path:
    """A one-page PDF with the paragraphs wrapped at ``width`` characters (lines break inside
    sentences, as in real PDFs) and a blank line between paragraphs."""
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += [*textwrap.wrap(paragraph, width), ""]
    ops = ["BT", "/F1 11 Tf", "14 TL", "50 780 Td"]
    for line in lines:
        ops.append(f"({_escape(line)}) Tj T*" if line else "T*")
    ops.append("ET")
    stream = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    path.write_bytes(bytes(out))
    return path


def write_docx(path: Path, paragraphs: list[str]) -> Path:
    """A DOCX with a heading, paragraphs and a two-row table."""
    import docx

    document = docx.Document()
    document.core_properties.title = paragraphs[0]
    document.add_heading(paragraphs[0], level=1)
    for paragraph in paragraphs[1:]:
        document.add_paragraph(paragraph)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Employee contribution"
    table.cell(0, 1).text = "5% of salary"
    table.cell(1, 0).text = "Employer contribution"
    table.cell(1, 1).text = "3% of salary"
    document.save(str(path))
    return path


def build_corpus(folder: Path) -> Path:
    """The committed text files plus a generated PDF and DOCX, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for file in CORPUS.iterdir():
        shutil.copy(file, folder / file.name)
    write_pdf(folder / "savings.pdf", SAVINGS)
    write_docx(folder / "pensions.docx", PENSIONS)
    return folder
