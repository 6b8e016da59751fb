"""Labels in the language: templates, what they may read, how elements, actions and choices read,
field headings, the score breakdown, and the screens built from them."""

from __future__ import annotations

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError
from loader import load_game
from tests.conftest import SHIPPED_CONFIGURATIONS

BOARD = """map "B" for "G" {
  city A(x: 1) city "El Paso"(x: 2) city C(x: 3)
  route R1(A, "El Paso", 2, red) route R2("El Paso", C, 1, dark_blue)
}
"""


def rules(extra: str = "", route_label: str = 'label "{a}–{b} ({length}, {color})"') -> str:
    """A small game: lines 1-15 fixed, `extra` from line 16."""
    return f"""game "G" {{
  players 2..2
  default map "board.metro"
  enum Color {{ red "bright red", dark_blue }}
  map schema {{
    kind city(x: int)
    kind route(a: city, b: city, length: 1..6, color: Color) {route_label}
  }}
  state {{
    owner: map route -> player? public "Claimed routes"
    turns: int public internal
    deck: list of Color hidden "Deck"
  }}
  per player {{ hand: list of Color owner "Hand"  points: int public "Points" }}
  function double(n: int) -> int = 2 * n
{extra}
  flow {{ loop {{ choose by seat(1) {{ claim }} turns += 1 if turns > 2 {{ break }} }} }}
}}
"""


CLAIM = '  action claim(r: route where owner[r] is none) label "claim {r}: {double(r.length)}" { owner[r] = me }\n'


def write(tmp_path, text: str) -> str:
    (tmp_path / "rules.metro").write_text(text, encoding="utf-8")
    (tmp_path / "board.metro").write_text(BOARD, encoding="utf-8")
    return str(tmp_path)


def errors(tmp_path, text: str) -> list[tuple[str, int, int, str]]:
    """(code, line, column, message) of each finding when compiling."""
    with pytest.raises(CompileError) as caught:
        compile_game(write(tmp_path, text))
    return [(d.code.code, d.span.line, d.span.col, d.message) for d in caught.value.diagnostics]


# ------------------------------------------------------------------ what labels show


def test_elements_actions_and_enum_values_read_as_the_rules_say(tmp_path):
    game = load_game(write(tmp_path, rules(CLAIM)), use_cache=False)
    state = game.new_game(2, 1)
    actions = state.legal_actions(0)
    assert [a.id for a in actions] == ["claim(R1)", "claim(R2)"]  # ids are unchanged
    assert [a.label for a in actions] == [
        "claim A–El Paso (2, bright red): 4",
        "claim El Paso–C (1, dark blue): 2",
    ]
    assert game.module.K_route__label == ("A–El Paso (2, bright red)", "El Paso–C (1, dark blue)")
    assert game.parse_action("claim(R2)").label == "claim El Paso–C (1, dark blue): 2"


def test_without_labels_elements_and_actions_read_as_their_names(tmp_path):
    text = rules(CLAIM.replace(' label "claim {r}: {double(r.length)}"', ""), route_label="")
    game = load_game(write(tmp_path, text), use_cache=False)
    assert [a.label for a in game.new_game(2, 1).legal_actions(0)] == ["claim R1", "claim R2"]


def test_an_actions_parameters_are_headed_as_declared_else_by_their_kind_or_name(tmp_path):
    claim = (
        '  action claim(r: route where owner[r] is none, c: Color "colour of the cards",'
        " extra: 0..1, spent in me.hand) { owner[r] = me }\n"
    )
    game = load_game(write(tmp_path, rules(claim)), use_cache=False)
    assert game.argument_headings == {"claim": ("route", "colour of the cards", "extra", "Color")}


def test_a_conditional_label_and_braces(tmp_path):
    action = (
        "  action claim(r: route where owner[r] is none)\n"
        '    label ("{{short}} {r}" if r.length == 1 else "long {r.length}") { owner[r] = me }\n'
    )
    game = load_game(write(tmp_path, rules(action)), use_cache=False)
    labels = [a.label for a in game.new_game(2, 1).legal_actions(0)]
    assert labels == ["long 2", "{short} El Paso–C (1, dark blue)"]


def test_choice_labels_optional_values_and_privacy(tmp_path):
    extra = (
        "  procedure pick() {\n"
        '    each p in players choose secret_pick: subset of p.hand size 0..1 label "keep {secret_pick}"\n'
        '    choose optional c: Color by seat(1) label ("nothing" if c is none else "take {c}")\n'
        "  }\n"
    )
    text = rules(CLAIM + extra).replace("flow { loop", "flow { pick() loop")
    game = load_game(write(tmp_path, text), use_cache=False)
    state = game.new_game(2, 1)
    assert game.sites[state.site].private  # chosen among owner-only data
    for p in (0, 1):
        state.apply(p, state.legal_actions(p)[0])
    assert not game.sites[state.site].private
    assert [a.label for a in state.legal_actions(0)] == [
        "take bright red",
        "take dark blue",
        "nothing",
    ]


def test_display_uses_headings_hides_internal_fields_and_secrets(tmp_path):
    game = load_game(write(tmp_path, rules(CLAIM)), use_cache=False)
    state = game.new_game(2, 1)
    state.apply(0, "claim(R2)")
    screen = state.display(1)
    headings = [item.heading for item in screen.table]
    assert "Turns" not in headings and "turns" not in headings  # internal
    assert [item.text for item in screen.table if item.heading == "Deck"] == ["0 hidden"]
    owned = next(
        item for item in screen.table if getattr(item, "columns", None) == ("Claimed routes",)
    )
    assert owned.rows == (("P1", "El Paso–C (1, dark blue)"),)
    assert screen.players.rows == (("Hand", "0 hidden", "0"), ("Points", "0", "0"))
    assert [line.heading for line in screen.private] == ["Hand"]


def test_breakdown(tmp_path):
    extra = (
        CLAIM
        + '  breakdown(p) { "Points": p.points, "Routes": [r for r in route where owner[r] == p] }\n'
    )
    game = load_game(write(tmp_path, rules(extra)), use_cache=False)
    state = game.new_game(2, 1)
    state.apply(0, "claim(R1)")
    assert state.breakdown(0) == [("Points", "0"), ("Routes", "A–El Paso (2, bright red)")]
    assert state.breakdown(1) == [("Points", "0"), ("Routes", "none")]


def test_a_breakdown_line_for_each_element_is_headed_by_its_label(tmp_path):
    extra = CLAIM + (
        '  breakdown(p) { "Points": p.points,'
        " for c in Color: sum(r.length for r in route where owner[r] == p and r.color == c) }\n"
    )
    game = load_game(write(tmp_path, rules(extra)), use_cache=False)
    state = game.new_game(2, 1)
    state.apply(0, "claim(R1)")  # A–El Paso, 2, red
    assert state.breakdown(0) == [("Points", "0"), ("bright red", "2"), ("dark blue", "0")]
    assert state.breakdown(1) == [("Points", "0"), ("bright red", "0"), ("dark blue", "0")]


def test_a_breakdown_line_for_each_element_reads_public_data_only(tmp_path):
    extra = CLAIM + "  breakdown(p) { for c in Color: count(x for x in p.hand where x == c) }\n"
    found = errors(tmp_path, rules(extra))
    assert found[0][0] == "label" and "cannot read" in found[0][3]


def test_display_entries_follow_each_players_fields(tmp_path):
    extra = CLAIM + '  display(p) { "Routes held": [r for r in route where owner[r] == p] }\n'
    game = load_game(write(tmp_path, rules(extra)), use_cache=False)
    state = game.new_game(2, 1)
    state.apply(0, "claim(R2)")
    assert state.display_entries(0) == [("Routes held", "El Paso–C (1, dark blue)")]
    for viewer in (0, 1, None):  # public data: every viewer sees the same rows
        rows = state.display(viewer).players.rows
        assert rows[-1] == ("Routes held", "El Paso–C (1, dark blue)", "none")


def test_without_a_display_the_screen_shows_the_fields_only(tmp_path):
    game = load_game(write(tmp_path, rules(CLAIM)), use_cache=False)
    state = game.new_game(2, 1)
    assert state.display_entries(0) == []
    assert [row[0] for row in state.display(0).players.rows] == ["Hand", "Points"]


# ------------------------------------------------------------------ mistakes, where they stand


def column_of(text: str, line: int, marker: str) -> int:
    """The 1-based column where `marker` first stands on `line` of `text`."""
    return text.split("\n")[line - 1].index(marker) + 1


@pytest.mark.parametrize(
    ("label", "marker", "message"),
    [
        ('"claim {r"', "{r", "a placeholder '{' in a label is not closed"),
        ('"claim } {r}"', "} {", "a single '}' in a label"),
        ('"claim {}"', "{}", "an empty placeholder"),
        ('"claim {r.}"', "}", "the label's placeholder ends too early"),
        ('"claim {r +* 2}"', "* 2", "unexpected '*'"),
        ('"claim {\\"x\\"}"', '\\"x', "cannot hold a backslash"),
    ],
)
def test_template_syntax_errors_point_into_the_string(tmp_path, label, marker, message):
    text = rules(f"  action claim(r: route) label {label} {{ }}\n")
    found = errors(tmp_path, text)
    assert found[0][:3] == ("syntax", 16, column_of(text, 16, marker)), found
    assert message in found[0][3]


@pytest.mark.parametrize(
    ("action", "marker", "message"),
    [
        (
            'label "claim {r} for {turns}"',
            "turns",
            "an action's label cannot read the state field 'turns'",
        ),
        ('label "claim {r} by {me}"', "me}", "cannot read `me`"),
        ('label "claim {r}, {size(players)}"', "players", "cannot read `players`"),
        ('label "claim {r}: {seat(1)}"', "seat", "seat() (it reads the game's position)"),
        ('label "claim {r} {ahead()}"', "ahead", "which reads the state field 'turns'"),
        ('label "claim {r} {x}"', "x}", "unknown name 'x'"),
        ('label ("a" if r.length else "b")', "r.length", "a condition must be a truth value"),
    ],
)
def test_what_an_action_label_may_not_read(tmp_path, action, marker, message):
    extra = "  function ahead() -> int = turns + 1\n" + f"  action claim(r: route) {action} {{ }}\n"
    text = rules(extra)
    found = errors(tmp_path, text)
    assert found[0][1:3] == (17, column_of(text, 17, marker)), found
    assert message in found[0][3]


def test_a_kind_label_cannot_show_its_own_kind(tmp_path):
    text = rules(CLAIM, route_label='label "{a} {route}"')
    found = errors(tmp_path, text)
    assert found[0][:3] == ("label", 7, column_of(text, 7, "route}"))
    assert "would read itself" in found[0][3]


def test_a_kind_label_reads_no_state(tmp_path):
    text = rules(CLAIM, route_label='label "{a} {turns}"')
    found = errors(tmp_path, text)
    assert found[0][:3] == ("label", 7, column_of(text, 7, "turns"))
    assert "a kind's label cannot read the state field 'turns'" in found[0][3]


def test_a_breakdown_reads_public_data_only(tmp_path):
    extra = CLAIM + '  breakdown(p) { "Points": p.points, "Hand": size(p.hand), "Cards": p.hand }\n'
    text = rules(extra)
    found = errors(tmp_path, text)
    assert found == [
        (
            "label",
            17,
            column_of(text, 17, "p.hand }"),
            "a score breakdown is shown to every player, so it cannot read the owner field 'hand'",
        )
    ]


def test_a_display_entry_reads_public_data_only(tmp_path):
    extra = CLAIM + '  display(p) { "Points": p.points, "Cards": p.hand }\n'
    text = rules(extra)
    found = errors(tmp_path, text)
    assert found == [
        (
            "label",
            17,
            column_of(text, 17, "p.hand }"),
            "a display entry is shown to every player, so it cannot read the owner field 'hand'",
        )
    ]


def test_choices_of_one_name_have_one_label(tmp_path):
    extra = (
        '  procedure pick() { choose c: Color by seat(1) label "take {c}" }\n'
        "  procedure other() {\n"
        '    choose c: Color by seat(2) label "grab {c}"\n'
        "  }\n"
    )
    text = rules(CLAIM + extra)
    found = errors(tmp_path, text)
    assert found[0][:3] == ("label", 19, column_of(text, 19, 'label "grab'))
    assert "choice 'c' has another label" in found[0][3]


@pytest.mark.parametrize(
    ("game", "expansions"),
    [
        ("ticket_to_ride", ()),
        ("tokyo_metro", ()),
        ("tokyo_metro", ("osaka",)),
        ("tokyo_metro", ("drinks",)),
        ("tokyo_metro", ("osaka", "drinks")),
        ("izakaya", ()),
        ("shopping_centre", ()),
        ("jidohanbaiki", ()),
    ],
)
def test_the_shipped_breakdowns_add_up_to_the_score(game, expansions):
    from metro import load_game as load_shipped
    from metro.bots import make_bot

    loaded = load_shipped(game, expansions=expansions)
    for seed in (1, 2):
        state = loaded.new_game(3, seed)
        bots = [make_bot("random", f"{seed}/{p}") for p in range(3)]
        while state.to_move:
            p = state.to_move[0]
            state.apply(p, bots[p].choose(state, p))
        for p in range(3):
            assert sum(int(text) for _, text in state.breakdown(p)) == state.scores()[p]


SHIPPED = [  # game, --with, --variant, players
    ("ticket_to_ride", (), (), 3),
    ("tokyo_metro", (), (), 3),
    ("tokyo_metro", ("osaka",), (), 3),
    ("tokyo_metro", (), ("cards-osaka",), 2),
    ("tokyo_metro", (), ("solo",), 1),
    ("tokyo_jutaku", (), (), 3),
    ("tokyo_jutaku", (), ("tower",), 2),
]


@pytest.mark.parametrize(("game", "expansions", "variants", "players"), SHIPPED)
def test_no_two_choices_of_a_shipped_menu_read_alike(game, expansions, variants, players):
    from metro import load_game as load_shipped
    from metro.bots import make_bot

    loaded = load_shipped(game, expansions=expansions, variants=variants)
    state = loaded.new_game(players, 4)
    bots = [make_bot("random", f"4/{p}") for p in range(players)]
    for _ in range(400):
        if not state.to_move:
            break
        p = state.to_move[0]
        labels = [a.label for a in state.legal_actions(p)]
        assert len(set(labels)) == len(labels), sorted(x for x in labels if labels.count(x) > 1)
        state.apply(p, bots[p].choose(state, p))


def test_double_routes_of_one_colour_read_as_two_tracks():
    from metro import load_game as load_shipped

    labels = load_shipped("ticket_to_ride").module.K_route__label
    assert "Atlanta–Raleigh (2, gray, track 1)" in labels
    assert "Atlanta–Raleigh (2, gray, track 2)" in labels
    assert "Atlanta–New Orleans (4, orange)" in labels  # twins of two colours read by colour
    assert len(set(labels)) == len(labels)


@pytest.mark.parametrize(("game", "expansions", "variants"), SHIPPED_CONFIGURATIONS)
def test_every_shipped_action_and_choice_with_arguments_reads_in_words(game, expansions, variants):
    from metro import load_game as load_shipped

    module = load_shipped(game, expansions=expansions, variants=variants).module
    unlabelled = sorted(
        name
        for name, (descs, _) in module.ACTION_DESCS.items()
        if descs and not hasattr(module, f"AD_{name}")
    )
    assert unlabelled == []  # `pass` and the like, without arguments, read as their names
