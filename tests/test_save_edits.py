"""A save stays loadable after an edit to rules it is not waiting in.

Frame locals are numbered per procedure and the pending decision is found from the top frame,
so adding a procedure (with decisions and loops of its own) and an action elsewhere changes
nothing a save of the unchanged procedure holds.
"""

from __future__ import annotations

import json
import random

from loader import load_game

RULES = """game "Edits" {
  players 2..2
  state { total: int public = 0  rounds: int public = 0 }
%s  procedure collect(p: player) {
    for k in 1..3 {
      repeat 2 times {
        choose n: 0..2 by p
        total += n * k
      }
    }
  }
  flow {
    repeat 3 times {
      rounds += 1
      for p in players { collect(p) }
    }
  }
  score(p) = total + rounds
}
"""

UNRELATED = """  procedure unrelated(p: player) {
    for j in 1..2 {
      repeat 2 times {
        choose m: 0..1 by p
        total += m * j
      }
    }
  }
  action bump() { total += 1 }
"""


def _play(state, rng: random.Random, moves: int | None = None):
    while not state.is_over and moves != 0:
        p = state.to_move[0]
        state.apply(p, rng.choice(state.legal_actions(p)))
        moves = None if moves is None else moves - 1
    return state


def _game(folder, extra: str):
    folder.mkdir(exist_ok=True)
    (folder / "rules.metro").write_text(RULES % extra, encoding="utf-8")
    return load_game(str(folder), use_cache=False)


def test_a_save_loads_and_plays_on_after_an_unrelated_edit(tmp_path):
    before = _game(tmp_path / "before", "")
    state = _play(before.new_game(2, seed=7), random.Random(1), 8)
    top = state.stack[-1]
    assert top.proc == "s_collect__0" and any(name.startswith("_") for name in top.L)
    save = state.to_json()
    finished = _play(state, random.Random(2))

    after = _game(tmp_path / "after", UNRELATED)
    assert after.module.PROC_PCS.keys() > before.module.PROC_PCS.keys()
    assert after.module.SITE_FRAMES != before.module.SITE_FRAMES  # the sites were numbered anew
    loaded = after.state_from_json(save)
    doc, saved = json.loads(loaded.to_json()), json.loads(save)
    assert doc == dict(saved, site=doc["site"])  # the same frames, locals and fields
    again = _play(loaded, random.Random(2))

    def outcome(s):
        doc = json.loads(s.to_json())
        return doc["history"], doc["state"], doc["player_state"], s.scores()

    assert outcome(again) == outcome(finished)
