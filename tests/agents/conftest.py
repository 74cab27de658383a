"""Fixtures of the agent tests: an agent's output folder with good and broken artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def pdf_bytes(pages: list[str]) -> bytes:
    """A minimal valid PDF with one page per string (an empty string gives a blank page)."""
    objects: list[bytes] = []
    n = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    font = 3 + 2 * n
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode() if text else b""
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)


@pytest.fixture
def agent_run(tmp_path: Path) -> Path:
    """``tmp_path/run1/``: what a research agent left behind, some of it broken."""
    out = tmp_path / "run1"
    (out / "tables").mkdir(parents=True)
    (out / "figures").mkdir()
    (out / "report.json").write_text(json.dumps(
        {"title": "Fees", "status": "done", "items": [{"id": 1}, {"id": 2}]}))
    (out / "tables" / "fees.csv").write_text("id,value\n1,12\n2,5\n")
    (out / "tables" / "ragged.csv").write_text("id,value\n1,12,extra\n")
    (out / "config.yaml").write_text("model: x\nsteps: 3\n")
    (out / "settings.toml").write_text("[run]\nseed = 1\n")
    (out / "broken.json").write_text('{"a": 1,')
    (out / "empty.txt").write_text("")
    (out / "script.py").write_text("def f(:\n    pass\n")
    (out / "rows.jsonl").write_text('{"id": 1, "ok": true}\n{"id": 2, "ok": "yes"}\n')
    (out / "paper.pdf").write_bytes(pdf_bytes(["Fees are 12 euros.", ""]))
    (out / "figures" / "plot.png").write_bytes(b"\x89PNG fake")
    return out
