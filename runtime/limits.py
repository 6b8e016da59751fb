"""The documented limits on the work one rule file can ask for (quoted by docs/limits.md).

Compile time refuses what is constant; at run time the same limits raise a `RuleError`
at the `.metro` line of the construct that went past them.
"""

from __future__ import annotations

# Steps between two decisions: every iteration of `while`/`loop`, every item a `for`, `repeat`,
# comprehension, aggregate or choice domain walks, and every call of a function or procedure.
# Walks are charged when they start (so a walk that would pass the budget fails before it
# begins), weighted by the steps one iteration may take (compiler/cost.py bounds them).
STEP_BUDGET = 2_000_000

# Walks that need no charge of their own: over an enum, the players, or a map kind, constant
# range or constant collection of at most this many items (the hot paths of generated games)...
FREE_WALK = 64

# ...while their whole cost, nested walks and calls included, is at most this many steps;
# beyond it they are charged like any walk, and a function or procedure whose body may take
# more charges that many steps whenever it is called.
FREE_STEPS = 4096

# Values one action parameter or choice domain may list (a range or a collection), and
# argument combinations one action may list when its domains' sizes are known when compiling.
MAX_DOMAIN = 100_000

# Sub-collections one `subset of` domain may list (all sizes together).
MAX_SUBSETS = 100_000

# Steps (values visited) the compiler may spend evaluating constants and map checks.
CONST_STEP_BUDGET = 2_000_000

# Loops nested inside one another in one body (for, repeat, while, loop; an action's
# parameters count as nested loops too); CPython allows 20 nested blocks in a function.
MAX_LOOP_NESTING = 16

# Statement blocks (if, for, repeat, while, loop) nested inside one another in one body
# (generated Python must stay within CPython's 100 levels of indentation).
MAX_BLOCK_NESTING = 64
