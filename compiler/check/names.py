"""Pass `names`: declared names — reserved and duplicate names, and the values of every enum.

Input: the merged Program. Output: `cp.global_names` (the one namespace of enums, consts,
map kinds and state fields: name -> what it names), `cp.enum_values` (each enum's values,
base values first) and `cp.value_enum` (a bare value name -> its most basic enum and index).
"""

from __future__ import annotations

from compiler.checked import CheckedProgram
from dsl.diagnostics import BAD_NAME, DUPLICATE, TYPE, UNDEFINED_NAME, Diagnostics, did_you_mean
from dsl.keywords import RESERVED_WORDS


def valid_identifier(name: str) -> bool:
    """Plain ASCII identifiers that are not Python keywords after mangling are always safe."""
    return name.isascii() and name.isidentifier() and not name.startswith("__")


def check_names(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Refuse bad and clashing declaration names; fill the global namespace and the enums."""
    _declarations(cp, diags)
    _enums(cp, diags)


def _declarations(cp: CheckedProgram, diags: Diagnostics) -> None:
    p = cp.program
    groups = [p.enums, p.consts, p.kinds, p.state, p.per_player, p.functions, p.procedures]
    for table in [*groups, p.actions]:
        for name, entry in table.items():
            decl = entry.active if hasattr(entry, "active") else entry
            if not valid_identifier(name) or name in RESERVED_WORDS:
                diags.error(BAD_NAME, f"'{name[:40]}' cannot be used as a name", decl.span)
    # Values, state, kinds and enums share one namespace; functions, procedures and actions
    # are only ever called or offered by name, so they live in their own.
    owners = cp.global_names
    for label, table in [
        ("enum", p.enums),
        ("const", p.consts),
        ("map kind", p.kinds),
        ("state field", p.state),
    ]:
        for name, entry in table.items():
            if name in owners:
                decl = entry.active if hasattr(entry, "active") else entry
                diags.error(
                    DUPLICATE, f"'{name}' names both a {owners[name]} and a {label}", decl.span
                )
            owners[name] = label
    for name, entry in p.functions.items():
        if name in p.procedures:
            diags.error(
                DUPLICATE, f"'{name}' names both a function and a procedure", entry.active.span
            )
    for name, entry in p.procedures.items():
        if name in p.functions:
            diags.error(
                DUPLICATE, f"'{name}' names both a procedure and a function", entry.active.span
            )


def _enums(cp: CheckedProgram, diags: Diagnostics) -> None:
    p = cp.program
    for name, decl in p.enums.items():
        seen, base = {name}, decl.base
        while base is not None:
            if base not in p.enums:
                diags.error(
                    UNDEFINED_NAME,
                    f"enum '{name}' extends unknown enum '{base}'",
                    decl.span,
                    *did_you_mean(base, p.enums),
                )
                break
            if base in seen:
                diags.error(
                    TYPE,
                    f"the extends chain of enum '{name}' loops: {_extends_chain(cp, name)}",
                    decl.span,
                )
                break
            seen.add(base)
            base = p.enums[base].base
        else:
            values = p.enum_values(name)
            if len(set(values)) != len(values):
                diags.error(DUPLICATE, f"enum '{name}' lists a value twice", decl.span)
            cp.enum_values[name] = values
            continue
        cp.enum_values[name] = list(decl.values)
    # A bare value name refers to the most basic enum that declares it.
    for name, values in cp.enum_values.items():
        for index, value in enumerate(values):
            home = home_enum(cp, name, value)
            existing = cp.value_enum.get(value)
            if existing is not None and existing[0] != home:
                if not (
                    cp.sub.enum_extends(existing[0], home) or cp.sub.enum_extends(home, existing[0])
                ):
                    diags.error(
                        DUPLICATE,
                        f"enum value '{value}' is declared by both '{existing[0]}' and '{home}'",
                        p.enums[name].span,
                    )
                continue
            cp.value_enum[value] = (
                home,
                cp.enum_values[home].index(value)
                if value in cp.enum_values.get(home, [])
                else index,
            )
            if not valid_identifier(value) or value in RESERVED_WORDS:
                diags.error(
                    BAD_NAME, f"'{value[:40]}' cannot be used as an enum value", p.enums[name].span
                )
            elif value in cp.global_names:
                diags.error(
                    DUPLICATE,
                    f"enum value '{value}' is also a {cp.global_names[value]}",
                    p.enums[name].span,
                )


def _extends_chain(cp: CheckedProgram, name: str) -> str:
    """`A extends B extends A`: the chain from `name` until an enum repeats."""
    chain = [name]
    while chain.count(chain[-1]) < 2:
        chain.append(cp.program.enums[chain[-1]].base)
    return " extends ".join(chain)


def home_enum(cp: CheckedProgram, name: str, value: str) -> str:
    """The most basic enum, from `name` up its `extends` chain, that declares `value`."""
    # Walks up at most once per enum: a cycle of `extends` was reported by `_enums`.
    enums = cp.program.enums
    seen = {name}
    decl = enums[name]
    while (
        decl.base
        and decl.base not in seen
        and decl.base in cp.enum_values
        and value in cp.enum_values[decl.base]
    ):
        name = decl.base
        seen.add(name)
        decl = enums[name]
    return name
