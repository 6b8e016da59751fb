"""The random-play battery over every shipped game, player count, variant and expansion.

Each configuration plays seeded games (100 by default; METRO_BATTERY_GAMES overrides; a
combination of several patches a tenth of that, the newest games a fifth) and checks the state
contract after every step. Games that declare a default bot are played by it.
"""

from __future__ import annotations

import itertools
import os
import random

import pytest

from compiler.resolve import (
    available_patches,
    expansion_named,
    find_patch_file,
    load_file,
    patch_title,
)
from dsl import ast
from loader import load_game
from metro.bots.preference import declared_bot
from metro.testing.battery import run_battery
from tests.conftest import ROOT, game_dirs

GAMES_PER_CONFIG = int(os.environ.get("METRO_BATTERY_GAMES", "100"))
# Combinations of several patches (an expansion with another or with a variant beyond what the
# variant requires) play fewer games: each of their parts already plays the full count alone.
COMBINATION_GAMES = max(1, GAMES_PER_CONFIG // 10)
# Games and expansions added after the suite's time budget was set play a fifth of the games by
# default (the nightly profile's 1,000 make 200): Izakaya, Metro Drinks in every combination,
# Bottle Bonus!, the vending-market game and the shopping centre.
SHORT = {"izakaya", "drinks", "bottle_bonus", "jidohanbaiki", "shopping_centre"}
SHORT_GAMES = max(1, GAMES_PER_CONFIG // 5)
# Bottle Bonus! games are long (about 240 decisions of the planner, checked after each): a tenth.
SLOW = {"bottle_bonus"}


def _combination(path: str) -> tuple[str, set[str], set[str]]:
    """(name, names it requires, names it excludes) of a variant or expansion file."""
    tree, _ = load_file(path)
    combos = [d for d in tree.decls if isinstance(d, ast.CombinationDecl)]
    return (
        tree.name,
        {d.other for d in combos if d.required},
        {d.other for d in combos if not d.required},
    )


def _allowed(game_dir: str, expansions: tuple, variants: tuple) -> bool:
    """False when the patches' `requires`/`excludes` rule the combination out."""
    files = [find_patch_file(game_dir, e, "expansions") for e in expansions]
    files += [find_patch_file(game_dir, v, "variants") for v in variants]
    found = [_combination(f) for f in files]
    names = {name for name, _, _ in found}
    return all(needs <= names and not excludes & names for _, needs, excludes in found)


def _setups(path: str):
    """(label, expansions, variants, games) for the base game and every combination its
    expansions and variants allow: any set of expansions, with no variant or one."""
    game_dir = os.path.join(ROOT, path)
    expansions = available_patches(game_dir, "expansions")
    for count in range(len(expansions) + 1):
        for chosen in itertools.combinations(expansions, count):
            for variant in [None, *available_patches(game_dir, "variants")]:
                variants = (variant,) if variant else ()
                if not _allowed(game_dir, chosen, variants):
                    continue
                label = "+".join((*chosen, *variants)) or "base"
                games = _games(game_dir, chosen, variant)
                if SHORT & {os.path.basename(path), *chosen}:
                    games = min(games, SHORT_GAMES)
                if SLOW & {os.path.basename(path), *chosen}:
                    games = min(games, COMBINATION_GAMES)
                yield label, chosen, variants, games


def _games(game_dir: str, expansions: tuple, variant: str | None) -> int:
    """The full count for the base game, one expansion, or one variant with what it requires."""
    if variant is None:
        return GAMES_PER_CONFIG if len(expansions) <= 1 else COMBINATION_GAMES
    found = patch_title(find_patch_file(game_dir, variant, "variants"))
    needed = {expansion_named(game_dir, title) for title in (found[1] if found else ())}
    given = {find_patch_file(game_dir, name, "expansions") for name in expansions}
    return GAMES_PER_CONFIG if given == needed else COMBINATION_GAMES


def _configs():
    for path in game_dirs():
        for label, expansions, variants, games in _setups(path):
            game = load_game(path, expansions=expansions, variants=variants)
            for players in range(game.min_players, game.max_players + 1):
                yield pytest.param(
                    path,
                    expansions,
                    variants,
                    players,
                    games,
                    id=f"{os.path.basename(path)}-{label}-{players}p",
                )


@pytest.mark.parametrize(("path", "expansions", "variants", "players", "games"), list(_configs()))
def test_random_play_battery(path, expansions, variants, players, games):
    game = load_game(path, expansions=expansions, variants=variants)
    choose = None
    if game.default_bot:
        bots = {}

        def choose(state, player, legal, rng: random.Random):
            bot = bots.setdefault(player, declared_bot(game, game.default_bot, rng.random()))
            return bot.choose(state, player)

    report = run_battery(game, players, games, seed=players, choose=choose)
    assert report.problems == [], "\n".join(report.problems)
    assert report.games == games
