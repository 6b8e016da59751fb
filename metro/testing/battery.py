"""The engine battery: random playouts that check the State contract after every step."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from metro.testing.scenarios import broken_invariants
from runtime.errors import IllegalAction
from runtime.machine import Action, Game, State


@dataclass
class BatteryReport:
    """What a battery run saw."""

    games: int = 0
    steps: int = 0
    problems: list[str] = field(default_factory=list)
    # Per player, the last list of legal actions found sorted and unique.
    checked: dict[int, list] = field(default_factory=dict, repr=False)

    def fail(self, message: str) -> None:
        """Record a problem (the battery keeps going to report several)."""
        if len(self.problems) < 20:
            self.problems.append(message)


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def check_step(game: Game, state: State, step: int, report: BatteryReport, where: str) -> None:
    """Every per-step property of the contract, for one position."""
    to_move = state.to_move
    if state.is_over:
        if to_move:
            report.fail(f"{where}: the game is over but {to_move} are to move")
        return
    if not to_move:
        report.fail(f"{where}: nobody is to move in a running game")
    for p in range(state.n):
        legal = state.legal_actions(p)
        if legal is report.checked.get(p):
            continue  # the very list checked at the previous step (kept over others' secret choices)
        report.checked[p] = legal
        if p in to_move:
            if not legal:
                report.fail(f"{where}: P{p + 1} is to move with no legal action")
            if legal != sorted(legal):
                report.fail(f"{where}: legal actions of P{p + 1} are not sorted")
            if len(set(legal)) != len(legal) or len({a.id for a in legal}) != len(legal):
                report.fail(f"{where}: legal actions of P{p + 1} repeat")
        elif legal:
            report.fail(f"{where}: P{p + 1} is not to move but has legal actions")
    for message in broken_invariants(state):
        report.fail(f"{where}: {message} does not hold")
    _check_views(state, report, where)
    if step < 10 or _power_of_two(step):
        text = state.to_json()
        again = game.state_from_json(text)
        if again.to_json() != text:
            report.fail(f"{where}: to_json/state_from_json does not round-trip")
        for p in to_move:  # the restored state lists afresh what the original may have cached
            if again.legal_actions(p) != state.legal_actions(p):
                report.fail(f"{where}: the restored state gives P{p + 1} other legal actions")
        twin = state.clone()
        if twin.to_json() != text:
            report.fail(f"{where}: clone differs from the original")
        _check_refusal(state, report, where)


def _check_views(state: State, report: BatteryReport, where: str) -> None:
    module = state.game.module
    for p in range(state.n):
        view = state.view(p)
        for name, visibility in module.STATE_VISIBILITY.items():
            if visibility != "public" and not _is_hidden(view["state"].get(name)):
                report.fail(f"{where}: view of P{p + 1} shows {visibility} field '{name}'")
        for q, fields in enumerate(view["player_state"]):
            for name, visibility in module.PLAYER_VISIBILITY.items():
                private = visibility == "hidden" or (visibility == "owner" and q != p)
                if private and not _is_hidden(fields.get(name)):
                    report.fail(
                        f"{where}: view of P{p + 1} shows P{q + 1}'s {visibility} field '{name}'"
                    )
        for forbidden in ("rng", "stack", "history", "seed"):
            if forbidden in view:
                report.fail(f"{where}: view of P{p + 1} contains '{forbidden}'")


def _is_hidden(value) -> bool:
    return (
        isinstance(value, dict) and value.get("hidden") is True and set(value) <= {"hidden", "size"}
    )


def _check_refusal(state: State, report: BatteryReport, where: str) -> None:
    before = state.to_json()
    bogus = Action((10**9, "no_such_action", (), ()))
    for p in range(state.n):
        try:
            state.apply(p, bogus)
        except IllegalAction:
            pass
        else:
            report.fail(f"{where}: a made-up action was accepted from P{p + 1}")
            return
        if state.to_json() != before:
            report.fail(f"{where}: a refused action changed the state")
            return
    waiting = [p for p in range(state.n) if p not in state.to_move]
    if waiting:
        legal = state.legal_actions(state.to_move[0])
        try:
            state.apply(waiting[0], legal[0])
        except IllegalAction:
            pass
        else:
            report.fail(f"{where}: P{waiting[0] + 1} could act out of turn")
        if state.to_json() != before:
            report.fail(f"{where}: an out-of-turn action changed the state")


def run_battery(game: Game, players: int, games: int, seed: int = 0, choose=None) -> BatteryReport:
    """Play `games` seeded random games, checking the contract after every step."""
    report = BatteryReport()
    for index in range(games):
        game_seed = f"{seed}/{index}"
        rng = random.Random(game_seed)
        state = game.new_game(players, game_seed)
        step = 0
        where = f"{game.name} {players}p seed {game_seed!r}"
        while not state.is_over:
            check_step(game, state, step, report, f"{where} step {step}")
            player = state.to_move[0]
            legal = state.legal_actions(player)
            if not legal:
                report.fail(f"{where} step {step}: no legal action")
                break
            action = choose(state, player, legal, rng) if choose else rng.choice(legal)
            state.apply(player, action)
            step += 1
            if step > game.max_decisions:
                report.fail(f"{where}: more than {game.max_decisions} decisions")
                break
        check_step(game, state, step, report, f"{where} end")
        _check_end(game, state, players, game_seed, report, where)
        report.games += 1
        report.steps += step
    return report


def _check_end(
    game: Game, state: State, players: int, seed, report: BatteryReport, where: str
) -> None:
    scores, ranking = state.scores(), state.ranking()
    if len(scores) != players or not all(isinstance(s, int) for s in scores):
        report.fail(f"{where}: scores are malformed: {scores}")
    if len(ranking) != players or min(ranking) != 1 or not all(1 <= r <= players for r in ranking):
        report.fail(f"{where}: ranking is malformed: {ranking}")
    replayed = game.replay(players, seed, [(p, a.id) for p, a in state.history])
    if replayed.to_json() != state.to_json():
        report.fail(f"{where}: replaying the history does not reproduce the final state")
