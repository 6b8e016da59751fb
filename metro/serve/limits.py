"""Every bound the server keeps, in one place (docs/serve.md states each one)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_BODY_BYTES = 8 * 1024  # a request body (a new match, an action)
MAX_OPEN_MATCHES = 200  # unfinished matches in the database; creating another is refused
IDLE_SECONDS = 7 * 24 * 3600  # a match without a decision this long no longer counts as open
MAX_LIVE_MATCHES = 400  # matches held in memory at once (the least recently used are dropped)
MAX_CONNECTIONS = 256  # websockets open at once, over all matches
MAX_CONNECTIONS_PER_MATCH = 32  # websockets open at once on one match
MAX_BOT_ITERATIONS = 2_000  # an mcts bot's iterations per decision
MAX_BOT_MILLISECONDS = 2_000  # an mcts bot's thinking time per decision
MAX_BOT_SAMPLES = 64  # a greedy bot's sampled positions per action
MAX_SEED_CHARS = 64  # a seed given as text
MAX_SEED = 2**63 - 1  # a seed given as a number, in absolute value
MAX_PATCHES = 16  # variants plus expansions of one match
MAX_MESSAGE_CHARS = 500  # a message of a match's chat
MAX_MESSAGES = 2_000  # messages of one match's chat; more are refused
MESSAGES_SHOWN = 100  # the newest messages in each match document
MESSAGES_PER_MINUTE = 20  # what one seat may say in a minute (on one server process)
ABSENT_SECONDS = (
    60.0  # a person gone this long (every websocket of their seat closed) gets a stand-in bot
)
STAND_IN_BOT = "greedy"  # the stand-in, unless the game declares a default bot
CATCH_UP_SECONDS = (
    0.5  # how often a followed match looks for decisions another server process wrote
)


@dataclass(frozen=True)
class BotBudget:
    """A budget a bot takes after a colon (`mcts:250ms`): its unit and the most allowed."""

    bot: str
    unit: str
    suffix: str  # written after the number
    most: int


BOT_BUDGETS = (
    BotBudget("mcts", "iterations", "", MAX_BOT_ITERATIONS),
    BotBudget("mcts", "milliseconds", "ms", MAX_BOT_MILLISECONDS),
    BotBudget("greedy", "samples", "", MAX_BOT_SAMPLES),
)
