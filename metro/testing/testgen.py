"""`metro testgen`: a standalone pytest module per game, rendered from a jinja2 template.

The module runs the game's scenarios (with variants or expansions: the base game's too, those
the patches break marked as expected failures), checks its invariants over random playouts that
Hypothesis drives (failures shrink to a short, printed replay record) and runs the engine
battery. It imports only `compiler`, `runtime`, `pytest` and `hypothesis`. Every value taken
from the rules reaches the template through the `pyrepr` filter, so it stays an inert literal.
"""

from __future__ import annotations

import os
import re

from compiler.emit import COMPILER_VERSION, environment
from compiler.resolve import find_game_file
from loader import load_game
from loader.games import shipped_name
from metro.output_files import write_output
from metro.testing.scenarios import own_scenarios, run_scenarios
from runtime.machine import Game

TEMPLATE = "testgen.py.jinja"

PROFILE_VARIABLE = "METRO_PROFILE"
PROFILES = ("ci", "nightly")

# How hard the generated tests work, per profile.
CI_EXAMPLES, NIGHTLY_EXAMPLES = 25, 2_500
CI_BATTERY, NIGHTLY_BATTERY = 3, 300
CI_LOCKSTEP, NIGHTLY_LOCKSTEP = 2, 100


def generate_tests(
    game_path: str, out_dir: str, variants=(), expansions=(), map_path: str | None = None
) -> list[str]:
    """Compile the game, write its test module into `out_dir` and return the paths written."""
    game = load_game(game_path, expansions=expansions, variants=variants, map=map_path)
    text = render_tests(game, game_path, variants, expansions, map_path)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, module_file_name(game_path, variants, expansions))
    write_output(path, text)
    return [path]


def render_tests(
    game: Game, game_path: str, variants=(), expansions=(), map_path: str | None = None
) -> str:
    """The text of the test module for a compiled game.

    The module names the game so that it runs from any folder: a shipped game by its name, any
    other by its absolute path (as it names files of variants, expansions and maps).
    """
    context = {
        "source_file": find_game_file(game_path),
        "version": COMPILER_VERSION,
        "game": shipped_name(game_path) or os.path.abspath(game_path),
        "variants": tuple(_patch_ref(v) for v in variants),
        "expansions": tuple(_patch_ref(e) for e in expansions),
        "map_path": os.path.abspath(map_path) if map_path else None,
        "game_name": game.name,
        "player_counts": list(range(game.min_players, game.max_players + 1)),
        "scenarios": [(_test_id(i, entry[0]), entry[0]) for i, entry in enumerate(game.scenarios)],
        "changed": changed_scenarios(game, game_path, variants, expansions),
        "invariants": [entry[0] for entry in game.invariants],
        "ci_examples": CI_EXAMPLES,
        "nightly_examples": NIGHTLY_EXAMPLES,
        "ci_battery": CI_BATTERY,
        "nightly_battery": NIGHTLY_BATTERY,
        "ci_lockstep": CI_LOCKSTEP,
        "nightly_lockstep": NIGHTLY_LOCKSTEP,
    }
    return environment("metro").get_template(TEMPLATE).render(**context)


def changed_scenarios(game: Game, game_path: str, variants=(), expansions=()) -> dict[str, str]:
    """Base scenarios that fail under the patches (name -> why): the rules they check changed."""
    if not variants and not expansions:
        return {}
    own = set(own_scenarios(game, game_path, variants, expansions))
    base = [r for r in run_scenarios(game, own) if not r.own]
    folder = os.path.dirname(os.path.abspath(find_game_file(game_path))) + os.sep
    return {r.scenario.name: r.error.replace(folder, "") for r in base if not r.passed}


def module_file_name(game_path: str, variants=(), expansions=()) -> str:
    """`test_metro_<game>[__<variant>...].py`, from the paths only (never from rule text)."""
    path = os.path.abspath(game_path)
    if os.path.isdir(path):
        stem = os.path.basename(path)
    else:  # rules.metro and game.metro are named after their directory
        stem = os.path.splitext(os.path.basename(path))[0]
        if stem in ("rules", "game"):
            stem = os.path.basename(os.path.dirname(path))
    parts = [stem] + [os.path.splitext(os.path.basename(p))[0] for p in (*expansions, *variants)]
    slug = "__".join(_slug(part) for part in parts)[:100]
    return f"test_metro_{slug}.py"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "game"


def _test_id(index: int, name: str) -> str:
    words = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:60].rstrip("-")
    return f"{index + 1}-{words}" if words else f"{index + 1}"


def _patch_ref(ref: str) -> str:
    """A variant/expansion file made absolute; a bare name (found beside the game) stays a name."""
    if not (ref.endswith(".metro") or "/" in ref or os.sep in ref):
        return ref
    return os.path.abspath(ref)


# ------------------------------------------------------------------ used by the generated modules


def current_profile() -> str:
    """The profile named by $METRO_PROFILE: "ci" (the default) or "nightly"."""
    name = os.environ.get(PROFILE_VARIABLE, "ci").strip() or "ci"
    if name not in PROFILES:
        raise ValueError(f"{PROFILE_VARIABLE} must be one of {', '.join(PROFILES)}, not {name!r}")
    return name
