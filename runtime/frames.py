"""What a generated game module is written against: frames, the runner's signals, actions, sites.

A compiled game is a module of plain functions. Procedures that wait for decisions are
state machines over a `Frame` (program counter + locals), so the whole game position —
including the middle of a procedure — is data that can be cloned, saved and replayed.
`runtime/state.py` holds the position itself, `runtime/machine.py` the engine that runs it.
"""

from __future__ import annotations

from runtime import saves
from runtime.values import copy_any, encode_any, plain_words

# What a frame procedure returns to the runner.
SUSPEND = 0  # a decision is pending: the state's `site` says which
RETURN = 1  # the frame finished; its result is in `frame.ret`
CALL = 2  # a new frame was pushed on top


class Waiting:
    """What a procedure's frameless entry returns when it had to wait (compiler/entries.py):
    its frame is on the stack, and `signal` is what that frame told the runner."""

    __slots__ = ("signal",)

    def __init__(self, signal: int):
        self.signal = signal


WAITING = {SUSPEND: Waiting(SUSPEND), CALL: Waiting(CALL)}


class _Unlisted:
    """What a decision's listing is when it was not made (`State.apply_to_value`): not empty."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "UNLISTED"


UNLISTED = _Unlisted()  # a listing not made: `legal_actions` makes it when asked


class Action(tuple):
    """A legal move: (rank, name, args, descriptors); ordered, hashable, with a stable id."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """The action's (or choice's) name."""
        return self[1]

    @property
    def args(self) -> tuple:
        """Argument values (runtime representation)."""
        return self[2]

    @property
    def id(self) -> str:
        """Stable text id, e.g. `claim_route(R001,red,0)`; the grammar is in runtime/action_ids.py."""
        args = self[2]
        if not args:
            return self[1]
        return (
            self[1] + "(" + ",".join(d.label(a) for d, a in zip(self[3], args, strict=True)) + ")"
        )

    @property
    def label(self) -> str:
        """How a person reads it: the label the rules declare, else its name and arguments in words.

        E.g. `claim Atlanta–Nashville (1, gray): 1 gray`, or by default `draw face up red`.
        A label depends on the arguments only, so it reads alike wherever the action is shown.
        """
        labeller = getattr(self[3], "labeller", None)
        if labeller is not None:
            return labeller(self[2])
        words = [plain_words(self[1])]
        words += [d.display(a) for d, a in zip(self[3], self[2], strict=True)]
        return " ".join(words)

    def __str__(self) -> str:
        return self.id

    def __repr__(self) -> str:
        return f"Action({self.id})"


class Frame:
    """One running procedure: which, where it stopped, its locals and the last call's result."""

    __slots__ = ("L", "pc", "proc", "ret")

    def __init__(self, proc: str, local_vars: dict, pc: int = 0):
        self.proc = proc
        self.pc = pc
        self.L = local_vars
        self.ret = None

    def copy(self) -> Frame:
        """An independent copy."""
        frame = object.__new__(Frame)
        frame.proc = self.proc
        frame.pc = self.pc
        frame.L = copy_any(self.L)
        ret = self.ret
        frame.ret = ret if ret is None else copy_any(ret)
        return frame

    def to_doc(self) -> dict:
        """Tagged JSON form."""
        return {
            "proc": self.proc,
            "pc": self.pc,
            "locals": encode_any(self.L),
            "ret": encode_any(self.ret),
        }

    @staticmethod
    def from_doc(doc: dict, pcs: dict[str, int]) -> Frame:
        """Inverse of to_doc; InvalidSave unless it is a frame of a procedure in `pcs` (name -> pc count)."""
        proc, pc, local_vars, ret = saves.frame_parts(doc, pcs)
        frame = Frame(proc, local_vars, pc)
        frame.ret = ret
        return frame


class Site:
    """A decision point: who decides, the legal actions, why one is refused, how it resumes."""

    __slots__ = (
        "file",
        "index",
        "kind",
        "legal",
        "line",
        "players",
        "private",
        "resume",
        "rule",
        "why",
    )

    @property
    def secret(self) -> bool:
        """True for simultaneous choices: what each player chose stays hidden until all have chosen."""
        return self.kind in ("each", "each_actions")

    def __init__(self, index, kind, players, legal, why, resume, file, line, rule):
        self.index = index
        self.kind = kind
        self.players = players
        self.legal = legal
        self.why = why
        self.resume = resume
        self.file = file
        self.line = line
        self.rule = rule
        self.private = (
            False  # what was chosen is the chooser's secret (set by Game from the module)
        )
