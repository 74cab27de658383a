"""The constraints file that `make test` and CI install with: every dependency pinned exactly."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)$")


def _name(requirement: str) -> str:
    """The normalised project name of a PEP 508 requirement (PEP 503 normalisation)."""
    name = re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins() -> dict[str, str]:
    pins: dict[str, str] = {}
    for number, line in enumerate((ROOT / "constraints.txt").read_text().splitlines(), 1):
        match = PIN.match(line)
        assert match, f"constraints.txt line {number} is not 'name==version': {line!r}"
        pins[_name(match[1])] = match[2]
    return pins


def _test_extras() -> list[str]:
    makefile = (ROOT / "Makefile").read_text()
    return re.search(r"^TEST_EXTRAS \?= (\S+)$", makefile, re.M)[1].split(",")  # type: ignore[index]


def test_constraints_pin_every_dependency_of_the_test_install() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _pins()
    wanted = list(project["dependencies"])
    for extra in _test_extras():
        wanted += project["optional-dependencies"][extra]
    missing = sorted({_name(r) for r in wanted} - set(pins))
    assert not missing, f"add to constraints.txt (pip freeze of a working venv): {missing}"


def test_constraints_leave_assay_itself_and_local_builds_out() -> None:
    pins = _pins()
    assert "assay" not in pins
    # a local version label (torch's +cpu) would not match the index of a fresh machine
    assert not [f"{n}=={v}" for n, v in pins.items() if "+" in v]


def test_make_test_installs_with_the_constraints_and_test_latest_without() -> None:
    makefile = (ROOT / "Makefile").read_text()
    install = makefile.split("\ninstall:", 1)[1].split("\n\n", 1)[0]
    latest = makefile.split("\ninstall-latest:", 1)[1].split("\n\n", 1)[0]
    assert install.count("-c $(CONSTRAINTS)") == 2
    assert "CONSTRAINTS" not in latest
    assert re.search(r"^test: install\b", makefile, re.M)
    assert re.search(r"^test-latest: install-latest\b", makefile, re.M)
