"""Golden playthroughs: a deterministic transcript of one seeded game, compared in CI."""

from __future__ import annotations

import hashlib

from metro.bots.preference import declared_bot
from runtime.machine import Game
from runtime.values import PLAYER


def transcript(game: Game, players: int, seed: int | str, bot: str | None = None) -> str:
    """Every decision of a seeded game played by seeded bots, with a state digest every 25 steps."""
    from metro.bots import make_bot

    name = bot or game.default_bot or "random"
    bots = [
        declared_bot(game, name, f"{seed}/{p}") or make_bot(name, f"{seed}/{p}")
        for p in range(players)
    ]
    state = game.new_game(players, seed)
    lines = [
        f"game: {game.name}",
        f"variants: {', '.join(game.variants) or 'none'}",
        f"players: {players}",
        f"seed: {seed}",
        f"bot: {name}",
    ]
    step = 0
    while state.to_move:
        player = state.to_move[0]
        legal = state.legal_actions(player)
        action = bots[player].choose(state, player)
        lines.append(f"{step:5d} {PLAYER.label(player)} ({len(legal)} legal) {action.id}")
        state.apply(player, action)
        step += 1
        if step % 25 == 0:
            lines.append(f"      state {hashlib.sha256(state.to_json().encode()).hexdigest()[:16]}")
    lines.append(f"scores: {state.scores()}")
    lines.append(f"ranking: {state.ranking()}")
    lines.append(f"final state {hashlib.sha256(state.to_json().encode()).hexdigest()}")
    return "\n".join(lines) + "\n"
