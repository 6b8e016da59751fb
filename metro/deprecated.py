"""Old module paths kept after a move: each is a thin module that calls `moved_module`.

`metro.simulate` and `metro.compare` name both an old module and a function of the `metro`
API; importing the old module makes `metro.simulate` that module (Python sets a submodule as
its package's attribute), so such an alias stays callable as the function it replaced.
"""

from __future__ import annotations

import sys
import warnings
from types import ModuleType


class CallableModule(ModuleType):
    """An old module path that is also the name of a function of the `metro` API."""

    def __call__(self, *args, **kwargs):
        return self.__dict__["_api_function"](*args, **kwargs)


def moved_module(old: str, new: ModuleType) -> None:
    """Make the module `old`, being imported, an alias of `new`, with a DeprecationWarning."""
    warnings.warn(
        f"{old} has moved to {new.__name__}; import it from there ({old} will go)",
        DeprecationWarning,
        stacklevel=3,
    )
    module = sys.modules[old]
    names = vars(new)
    module.__dict__.update(
        {name: value for name, value in names.items() if not name.startswith("__")}
    )
    module.__all__ = names.get("__all__", [n for n in names if not n.startswith("_")])
    package, _, leaf = old.rpartition(".")
    function = getattr(sys.modules[package], leaf, None)
    if callable(function) and not isinstance(function, ModuleType):
        module._api_function = function
        module.__class__ = CallableModule
