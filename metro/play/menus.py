"""A person's menu of legal actions, numbered so the same kind of choice keeps its number.

In a menu of actions (`choose by p { pass, walk, … }`) each kind of action has the number of
its place among the game's actions, in every menu and every turn (`11. take a loan`); a kind
with several choices numbers them after a dot (`3.2 walk to …`). A choice of values (a bid,
a square) numbers its values 1, 2, … and its "none" option 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.machine import Action
from runtime.values import plain_words

# Menus where each action kind has its own number (choices of values are numbered plainly).
ACTION_MENUS = ("actions", "each_actions")


@dataclass(frozen=True)
class Choice:
    """One legal action with the number a person types for it."""

    number: str  # "3", "3.2", or "0" for a choice's none
    action: Action


@dataclass(frozen=True)
class Kind:
    """The choices of one action in a menu: its number, a heading, its choices in order."""

    number: str
    heading: str
    choices: tuple[Choice, ...]


@dataclass(frozen=True)
class Menu:
    """A person's numbered choices at one decision."""

    kinds: tuple[Kind, ...]

    @property
    def choices(self) -> list[Choice]:
        """Every choice, in the menu's order."""
        return [choice for kind in self.kinds for choice in kind.choices]

    def numbers(self) -> str:
        """The numbers a person may type, for a hint (`1, 3.1-3.12, 11`)."""
        parts = []
        for kind in self.kinds:
            first, last = kind.choices[0].number, kind.choices[-1].number
            parts.append(first if first == last else f"{first}-{last}")
        return ", ".join(parts)

    def find(self, typed: str) -> Choice | Kind | None:
        """The choice a typed number names, the kind a kind's number names, or None."""
        for kind in self.kinds:
            if typed == kind.number and len(kind.choices) > 1:
                return kind
            for choice in kind.choices:
                if typed == choice.number:
                    return choice
        return None


def numbered(actions: list[Action], site_kind: str) -> Menu:
    """The menu of `actions` offered at a decision of the given kind (Site.kind)."""
    if site_kind not in ACTION_MENUS:
        values = [a for a in actions if a[0] % 2 == 0]
        # An optional choice ranks its none after its values (compiler/lower.py).
        nones = [a for a in actions if a[0] % 2 == 1]
        kinds = []
        if nones:
            kinds.append(Kind("0", "", (Choice("0", nones[0]),)))
        if values:
            choices = tuple(Choice(str(n), a) for n, a in enumerate(values, 1))
            kinds.append(Kind("1" if len(choices) == 1 else "", heading(values), choices))
        return Menu(tuple(kinds))
    by_rank: dict[int, list[Action]] = {}
    for action in actions:
        by_rank.setdefault(action[0], []).append(action)
    kinds = []
    for rank in sorted(by_rank):
        group = by_rank[rank]
        number = str(rank // 2 + 1)  # ranks are twice the action's place (compiler/codegen.py)
        if len(group) == 1:
            choices = (Choice(number, group[0]),)
        else:
            choices = tuple(Choice(f"{number}.{n}", a) for n, a in enumerate(group, 1))
        kinds.append(Kind(number, heading(group), choices))
    return Menu(tuple(kinds))


def heading(actions: list[Action]) -> str:
    """What a kind's choices have in common, in their own words: the words every label starts
    with, up to a colon that begins details (`claim Atlanta–Nashville: 1 orange` → `claim`)."""
    labels = [a.label for a in actions]
    common = labels[0].split(" ")
    for label in labels[1:]:
        words = label.split(" ")
        size = 0
        while size < min(len(common), len(words)) and common[size] == words[size]:
            size += 1
        common = common[:size]
    if len(labels) > 1:
        colons = [i for i, word in enumerate(common) if word.endswith(":")]
        if colons:
            common = common[: colons[-1] + 1]
    words = " ".join(common).rstrip(":,;(")
    # Labels that share no word: the action's name, as words.
    return words or plain_words(actions[0].name)
