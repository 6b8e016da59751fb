"""The generated modules read well: no unused imports or variables, named values, .metro lines."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from compiler import generate_python
from compiler.pyexpr import tidy
from tests.conftest import ROOT

# Every shipped game, with its expansions and variants: (game, expansions, variants).
CONFIGURATIONS = [
    ("ticket_to_ride", (), ()),
    ("tokyo_metro", (), ()),
    ("tokyo_metro", ("osaka",), ()),
    ("tokyo_metro", ("drinks",), ()),
    ("tokyo_jutaku", (), ()),
    ("tokyo_jutaku", (), ("tower",)),
    ("izakaya", (), ()),
    ("shopping_centre", (), ()),
    ("tokyo_jutaku", ("bottle_bonus",), ()),
    ("jidohanbaiki", (), ()),
]


def ruff() -> str | None:
    """The ruff executable beside this Python, or on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "ruff")
    return beside if os.path.isfile(beside) else shutil.which("ruff")


@pytest.fixture(scope="module")
def modules() -> dict[tuple, str]:
    return {
        config: generate_python(os.path.join(ROOT, "games", config[0]), config[1], config[2])
        for config in CONFIGURATIONS
    }


@pytest.mark.parametrize("config", CONFIGURATIONS, ids=lambda c: "+".join([c[0], *c[1], *c[2]]))
def test_no_unused_imports_or_variables(config, modules, tmp_path):
    executable = ruff()
    if executable is None:
        pytest.skip("ruff is not installed")
    path = tmp_path / "generated.py"
    path.write_text(modules[config])
    result = subprocess.run(
        [executable, "check", "--select", "F401,F841", "--isolated", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("config", CONFIGURATIONS, ids=lambda c: "+".join([c[0], *c[1], *c[2]]))
def test_no_redundant_parentheses(config, modules):
    code = [line.strip() for line in modules[config].splitlines()]
    untidy = [line for line in code if line and not line.startswith("#") and tidy(line) != line]
    assert untidy == []


def test_statements_start_with_their_metro_line(modules):
    text = modules[CONFIGURATIONS[0]]
    setup = text[text.index("def s_setup__0") :]
    assert re.search(r"# rules\.metro:\d+\n\s+S\.g_deck = ", setup)
    comments = re.findall(r"^\s*# (rules|scenarios|usa)\.metro:\d+$", text, re.M)
    assert len(comments) > 120  # the game module's (its scenarios are a module of their own)


def test_enum_values_are_named_constants(modules):
    text = modules[CONFIGURATIONS[0]]
    assert "\nE_RouteColor__gray = 8\n" in text
    assert "== E_RouteColor__gray" in text
    assert not re.search(r"K_route__color\[[^\]]+\] == \d", text)
