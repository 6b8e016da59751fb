"""Test vectors (metro testgen --format vectors): their content, their schemas, perft, variants."""

from __future__ import annotations

import json
import os
import stat

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from loader import load_game
from metro.cli import main
from metro.conformance.adapter import LocalAdapter
from metro.conformance.conform import run_vectors
from metro.conformance.perft import ChanceInPerft, perft
from metro.conformance.vectorgen import VectorOptions, build_vectors, generate_vectors
from metro.conformance.vectors import read_vector_files
from metro.testing.scenarios import own_scenarios
from runtime.chance import CHANCE
from tests.conftest import ROOT

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
SCHEMAS = os.path.join(ROOT, "schemas")
SMALL = VectorOptions(playouts=1, perft_at=(0,), perft_depth=2)

DICE = """game "Dice race" {
  players 2..3
  state {
    bag: pile of int hidden
    pot: int public
  }
  per player {
    total: int public
  }
  action throw() { me.total += roll(6) }
  action rest() when pot < 100 { pot += 1 }
  flow {
    bag = [1, 2, 3, 4]
    shuffle bag
    repeat 2 times {
      for p in players { choose by p { throw, rest } }
    }
    for p in players { p.total += take_top(bag) }
  }
  score(p) = p.total
  scenario "a throw adds the roll" players 2 seed 3 {
    play seat(1): throw()
    expect seat(1).total >= 1
  }
  scenario "a full pot refuses a rest" players 2 seed 3 {
    pot = 100
    refuse seat(1): rest()
    play seat(1): throw()
  }
}
"""


def registry() -> Registry:
    """Every shipped schema, by its $id (the vector schema refers to the protocol's)."""
    resources = []
    for folder, _dirs, files in os.walk(SCHEMAS):
        for name in files:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                doc = json.load(handle)
            resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def validator(name: str) -> Draft202012Validator:
    """A validator of a shipped schema, with the others reachable."""
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=registry())


@pytest.fixture(scope="module")
def ttr_vectors(tmp_path_factory):
    """Ticket to Ride's vectors, written once for the module."""
    folder = tmp_path_factory.mktemp("vectors")
    generate_vectors(TTR, str(folder))
    return str(folder)


@pytest.fixture(scope="module")
def dice_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dice")
    (folder / "rules.metro").write_text(DICE)
    return str(folder)


def vectors_of(folder: str) -> dict[str, dict]:
    return {v["id"]: v for _, doc in read_vector_files(folder) for v in doc["vectors"]}


def test_every_shipped_schema_is_a_valid_schema():
    for folder, _dirs, files in os.walk(SCHEMAS):
        for name in files:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                Draft202012Validator.check_schema(json.load(handle))


def test_the_files_follow_the_vector_schema_and_the_games_own_schemas(ttr_vectors):
    files = read_vector_files(ttr_vectors)
    assert sorted(os.path.basename(p) for p, _ in files) == [
        "initial.json",
        "perft.json",
        "playouts.json",
        "scenarios.json",
    ]
    check = validator("vectors.schema.json")
    with open(os.path.join(ttr_vectors, "view.schema.json"), encoding="utf-8") as handle:
        view = Draft202012Validator(json.load(handle))
    with open(os.path.join(ttr_vectors, "state.schema.json"), encoding="utf-8") as handle:
        state = Draft202012Validator(json.load(handle))
    views = fields = 0
    for _, doc in files:
        # A sample of each file: validating every view takes jsonschema half a minute.
        check.validate(doc | {"vectors": doc["vectors"][:3]})
        for index, vector in enumerate(doc["vectors"]):
            for step in vector["steps"]:
                for seen in step.get("expect", {}).get("views", [])[: 2 * (index < 6)]:
                    view.validate(seen)
                    views += 1
                if "set_state" in step:
                    state.validate(step["set_state"])
                    fields += 1
    assert views > 20 and fields > 50


def test_a_game_gets_initial_positions_scenarios_playouts_and_perft(ttr, ttr_vectors):
    vectors = vectors_of(ttr_vectors)
    kinds = [v["kind"] for v in vectors.values()]
    assert kinds.count("initial") == 4  # 2-5 players
    assert kinds.count("scenario") == len(ttr.scenarios)
    assert kinds.count("playout") == 4
    assert kinds.count("perft") >= 8
    assert all(v["status"] == "own" for v in vectors.values())
    playout = vectors["playout-3p-1"]
    assert playout["steps"][-1]["expect"]["over"] is True
    assert sum("chance" in step for step in playout["steps"]) >= 2


def test_a_scenario_becomes_data(ttr_vectors):
    vectors = vectors_of(ttr_vectors)
    found = [v for v in vectors.values() if "keeping fewer than two tickets" in v["name"]]
    (refusals,) = found
    assert refusals["source"].startswith("scenarios.metro:")
    kinds = [next(iter(step)) for step in refusals["steps"]]
    assert kinds[:2] == ["chance", "chance"]  # the train cards, then the tickets
    assert kinds.count("refuse") == 3 and "apply" not in kinds
    refused = [step["refuse"] for step in refusals["steps"] if "refuse" in step]
    assert refused[2] == {"player": 0, "action": "keep([])"}
    arranged = [v for v in vectors.values() if any("set_state" in s for s in v["steps"])]
    assert len(arranged) > 30  # scenarios that arrange cards, tickets or routes


def test_a_reshuffle_in_the_middle_of_a_turn_is_a_chance_step(ttr_vectors):
    vectors = vectors_of(ttr_vectors)
    (reshuffle,) = [v for v in vectors.values() if "reshuffles the discard pile" in v["name"]]
    steps = reshuffle["steps"]
    middle = [i for i, step in enumerate(steps) if "chance" in step and i > 2]
    assert middle and "apply" in steps[middle[0] - 1]


def test_the_reference_passes_its_own_vectors(ttr, ttr_vectors):
    from metro.conformance.conform import load_vectors

    name, vectors = load_vectors(ttr_vectors)
    assert name == ttr.name
    results = run_vectors(lambda: LocalAdapter(ttr), vectors)
    assert [r.id for r in results if not r.passed] == []
    assert len(results) == len(vectors) > 100


def test_perft_counts_action_sequences(ttr):
    state = ttr.new_game(3, 1)
    # Each of the three players keeps 2 or 3 of 3 offered tickets: 4 choices each.
    assert [perft(state, d) for d in range(4)] == [1, 4, 16, 64]
    assert state.history == []
    explicit = ttr.new_game(3, chance="explicit")
    with pytest.raises(ChanceInPerft):
        perft(explicit, 1)
    assert perft(explicit, 0) == 1


def test_vectors_are_deterministic_and_cover_rolls_and_arrangements(dice_dir):
    game = load_game(dice_dir, use_cache=False)
    first, _ = build_vectors(dice_dir, options=SMALL)
    second, _ = build_vectors(dice_dir, options=SMALL)
    assert first.files() == second.files()
    vectors = {v.id: v for v in first.vectors}
    rest = vectors["scenario-002-a-full-pot-refuses-a-rest"]
    kinds = [next(iter(step)) for step in rest.steps]
    assert kinds == [
        "chance",
        "expect",
        "set_state",
        "expect",
        "refuse",
        "expect",
        "apply",
        "chance",
        "expect",
    ]
    assert rest.steps[-2] == {"chance": rest.steps[-2]["chance"]}
    assert rest.steps[-2]["chance"]["kind"] == "roll"
    results = run_vectors(lambda: LocalAdapter(game), [("", v) for v in first.vectors])
    assert all(r.passed for r in results)


def test_a_variant_set_holds_the_base_vectors_recomputed_and_marked(ttr):
    variant_set, game = build_vectors(TTR, variants=["open_doubles"], options=SMALL)
    assert variant_set.variants == ["open_doubles"]
    statuses = {v.id: v.status for v in variant_set.vectors}
    assert statuses["initial-2p"] == "unchanged"
    own = [v for v in variant_set.vectors if v.status == "own"]
    assert [v.kind for v in own] == ["scenario"]  # the variant's own scenario
    assert own[0].id.startswith("scenario-variant-")
    skipped = {s.id: s.reason for s in variant_set.not_applicable}
    # With open doubles, 2-3 players may claim the second track: the base scenarios refusing it fail.
    assert len(skipped) == 2
    assert all("is now accepted" in reason for reason in skipped.values())
    assert all("/" not in reason.split("works: ")[1] for reason in skipped.values())
    changed = [v for v in variant_set.vectors if v.status == "changed"]
    assert changed and all(v.changed_steps for v in changed)
    assert len(variant_set.vectors) + len(skipped) == len(ttr.scenarios) + 1 + 4 + 4 + 4
    results = run_vectors(lambda: LocalAdapter(game), [("", v) for v in variant_set.vectors])
    assert all(r.passed for r in results)


def test_testgen_writes_vectors_from_the_command_line(tmp_path, dice_dir):
    result = CliRunner().invoke(
        main,
        [
            "testgen",
            dice_dir,
            "-o",
            str(tmp_path),
            "--format",
            "vectors",
            "--playouts",
            "2",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    written = json.loads(result.output)["written"]
    assert sorted(os.path.basename(p) for p in written) == [
        "initial.json",
        "manifest.json",
        "perft.json",
        "playouts.json",
        "scenarios.json",
        "state.schema.json",
        "view.schema.json",
    ]
    assert len(vectors_of(str(tmp_path))) > 6


def test_vector_files_get_the_mode_of_any_new_file(tmp_path, dice_dir):
    old = os.umask(0o027)  # not the default, so that 0o600 and 0o644 both fail
    try:
        options = VectorOptions(playouts=0, perft_depth=0)
        written = generate_vectors(dice_dir, str(tmp_path / "out"), options=options)
    finally:
        os.umask(old)
    assert {stat.S_IMODE(os.stat(path).st_mode) for path in written} == {0o640}
    assert sorted(os.listdir(tmp_path / "out")) == sorted(map(os.path.basename, written))


def test_a_scenario_failing_on_the_reference_is_a_clear_error(tmp_path):
    (tmp_path / "rules.metro").write_text(
        DICE.replace("expect seat(1).total >= 1", "expect seat(1).total >= 100")
    )
    result = CliRunner().invoke(
        main, ["testgen", str(tmp_path), "-o", str(tmp_path / "v"), "--format", "vectors"]
    )
    assert result.exit_code == 1
    assert "scenario 'a throw adds the roll' fails on the reference runtime" in result.output
    assert "Traceback" not in result.output


def test_a_chance_node_is_visible_to_an_adapter(ttr):
    adapter = LocalAdapter(ttr)
    adapter.new_game(2, chance="explicit")
    assert adapter.awaits_chance() and adapter.to_move() == []
    assert adapter.state.to_move == [CHANCE]
    assert "not a reordering" in adapter.chance({"kind": "shuffle", "order": ["red"] * 110})


QUICK = VectorOptions(playouts=1, playout_steps=25, perft_at=(0,), perft_depth=1)


@pytest.mark.parametrize(
    ("name", "expansions"),
    [
        ("tokyo_metro", []),
        ("tokyo_metro", ["drinks"]),
        ("tokyo_jutaku", []),
        ("izakaya", []),
        ("shopping_centre", []),
    ],
)
def test_the_other_games_pass_their_own_vectors(name, expansions):
    """Every scenario of the other shipped games as data, and short playouts, on the reference."""
    path = os.path.join(ROOT, "games", name)
    vector_set, game = build_vectors(path, expansions=expansions, options=QUICK)
    scenario_ids = [v.id for v in vector_set.vectors if v.kind == "scenario"]
    if expansions:  # the expansion's own scenarios, and the base ones it leaves alone
        own = own_scenarios(game, path, (), expansions)
        assert sum(i.startswith("scenario-expansion-") for i in scenario_ids) == len(own)
    else:
        assert len(scenario_ids) == len(game.scenarios)
    results = run_vectors(lambda: LocalAdapter(game), [("", v) for v in vector_set.vectors])
    assert [r.difference for r in results if not r.passed] == []


CONFIGURATIONS = [
    ("ticket_to_ride", [], []),
    *(("ticket_to_ride", [v], []) for v in ("big_bonus", "big_hand", "no_locomotive_redeal")),
    *(("ticket_to_ride", [v], []) for v in ("open_doubles", "short_game")),
    ("tokyo_metro", [], []),
    ("tokyo_metro", ["cards-osaka"], []),
    ("tokyo_metro", ["solo"], []),
    ("tokyo_metro", [], ["osaka"]),
    ("tokyo_metro", ["cards-tokyo"], ["osaka"]),
    ("tokyo_metro", [], ["drinks"]),
    ("tokyo_metro", [], ["osaka", "drinks"]),
    ("tokyo_metro", ["drinks-own-colour"], ["drinks"]),
    ("tokyo_metro", ["solo"], ["drinks"]),
    ("tokyo_jutaku", [], []),
    ("tokyo_jutaku", ["tower"], []),
    ("izakaya", [], []),
    ("izakaya", ["corner-chips"], []),
    ("izakaya", ["highest-bid"], []),
    ("shopping_centre", [], []),
    ("shopping_centre", ["balance"], []),
]


@pytest.mark.nightly
@pytest.mark.parametrize(("name", "variants", "expansions"), CONFIGURATIONS)
def test_every_configuration_passes_its_full_vector_set(name, variants, expansions):
    """The default vector set of every shipped game, variant and expansion, on the reference."""
    vector_set, game = build_vectors(os.path.join(ROOT, "games", name), variants, expansions)
    results = run_vectors(lambda: LocalAdapter(game), [("", v) for v in vector_set.vectors])
    assert [r.difference for r in results if not r.passed] == []
