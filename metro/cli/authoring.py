"""The commands for writing rules: check, test, compile, diff, fmt and the editors' lsp."""

from __future__ import annotations

import json
import sys

import click

import compiler
from dsl.diagnostics import STRUCTURE, CompileError
from dsl.terminal import printable
from loader import load_game
from metro.bots import DEFAULT_LEVELS, make_bot
from metro.cli.options import (
    GAME_PATH,
    Failure,
    game_options,
    plural,
    reported,
    say,
)
from metro.testing.scenarios import own_scenarios, run_scenarios


@click.command()
@click.argument("paths", nargs=-1, required=True, type=GAME_PATH, metavar="GAME...")
@click.option(
    "--scenarios",
    "run",
    is_flag=True,
    help="Also run every scenario (a game whose scenarios fail is not ok).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/check.schema.json) instead of text.",
)
@game_options
def check(paths: tuple[str, ...], run: bool, as_json: bool, variants, expansions, map_path) -> None:
    """Compile games and print their diagnostics; with --scenarios, run their scenarios too.

    Each GAME is a shipped game's name, a game directory (holding rules.metro) or a rules file. Exit status 1
    if any game has errors (or, with --scenarios, a failing scenario).
    """
    results = [
        _check_one(path, variants, expansions, map_path, run, echo=not as_json) for path in paths
    ]
    if as_json:
        say(json.dumps({"games": results}))
    if not all(result["ok"] for result in results):
        raise click.exceptions.Exit(1)


def _check_one(path: str, variants, expansions, map_path, run: bool, echo: bool) -> dict:
    """Compile one game (and run its scenarios); print findings when `echo`; its JSON-able result."""
    result = {"path": path, "ok": False, "game": None, "scenarios": 0, "invariants": 0}
    failed: list[dict] = []
    try:
        ctx = compiler.compile_game(path, expansions, variants, map_path)
    except CompileError as error:
        if echo:
            say(error.render(), err=True)
        return result | {
            "scenarios_passed": None,
            "scenario_failures": failed,
            "diagnostics": [d.to_dict() for d in error.diagnostics],
        }
    program = ctx.program
    _check_levels(ctx)
    errors = any(d.severity == "error" for d in ctx.diags.items)
    declared = len(program.scenarios)
    passed = None
    changed = 0
    if run:
        game = load_game(path, expansions=expansions, variants=variants, map=map_path)
        outcomes = run_scenarios(game, set(own_scenarios(game, path, variants, expansions)))
        failed = [r.to_doc() for r in outcomes if not r.passed and r.own]
        changed = sum(not r.passed and not r.own for r in outcomes)
        passed = sum(r.passed for r in outcomes)
    if echo:
        for diagnostic in ctx.diags.items:
            say(diagnostic.render(ctx.sources), err=True)
        for failure in failed:
            say(
                f"{failure['where']}: scenario {failure['name']} fails: {failure['error']}",
                err=True,
            )
        if not run:
            ran = f"{plural(declared, 'scenario')} declared, not run"
        else:
            ran = f"{passed} of {plural(declared, 'scenario')} pass" + (
                f", {changed} base ones changed by the patches" if changed else ""
            )
        verdict = "FAIL" if failed or errors else "ok"
        say(
            f"{verdict}: {printable(program.game_name)} ({ran}; "
            f"{plural(len(program.invariants), 'invariant')})"
        )
    return result | {
        "ok": not failed and not errors,
        "game": program.game_name,
        "scenarios": declared,
        "invariants": len(program.invariants),
        "scenarios_passed": passed,
        "scenario_failures": failed,
        "diagnostics": [d.to_dict() for d in ctx.diags.items],
    }


def _check_levels(ctx) -> None:
    """An error at each `level` whose bot cannot be made (an unknown kind, a bad budget)."""
    program = ctx.program
    for decl in program.levels.values():
        if decl.bot in program.bots:  # a bot the rules declare
            continue
        problem = None
        if decl.bot in program.levels or decl.bot in DEFAULT_LEVELS:
            problem = (
                f"'{decl.bot}' is a level: a level names a bot (random, greedy:8, mcts:400, …)"
            )
        else:
            try:
                make_bot(decl.bot, 0)
            except ValueError as error:
                problem = str(error)
        if problem is not None:
            ctx.diags.error(
                STRUCTURE,
                f"level {decl.name} names a bot that cannot be made: {problem}",
                decl.bot_span or decl.span,
            )


@click.command("test")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-k", "only", default="", metavar="TEXT", help="Run the scenarios whose name has TEXT."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/test.schema.json) instead of text.",
)
@game_options
def test_command(path: str, only: str, as_json: bool, variants, expansions, map_path) -> None:
    """Run a game's scenarios: pass/fail each, then a summary; exit 1 if one fails.

    With --variant or --with the base scenarios run too (the base of variants is the game with
    its expansions); one that fails under the patches is reported as changed by them (the rule
    it checks changed), not as a failure.
    """
    game = load_game(path, expansions=expansions, variants=variants, map=map_path)
    own = set(own_scenarios(game, path, variants, expansions))
    results = run_scenarios(game, own, only)
    failed = [r for r in results if not r.passed and r.own]
    changed = [r for r in results if not r.passed and not r.own]
    if as_json:
        summary = {"passed": sum(r.passed for r in results), "failed": len(failed)}
        say(
            json.dumps(
                {"game": game.name, **summary, "changed": len(changed)}
                | {"results": [r.to_doc() for r in results]},
                ensure_ascii=False,
            )
        )
    else:
        for result in results:
            verdict = "pass" if result.passed else "FAIL" if result.own else "changed"
            say(f"{verdict} {result.scenario.name}")
            if not result.passed:
                say(f"     {result.error}")
        say(
            f"{sum(r.passed for r in results)} passed, {len(failed)} failed"
            + (f", {len(changed)} base scenarios changed by the patches" if changed else "")
        )
    if failed:
        raise click.exceptions.Exit(1)


@click.command("compile")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=str),
    help="Where to write the generated Python module ('-' for standard output).",
)
@click.option(
    "--scenarios",
    "scenarios_output",
    type=click.Path(dir_okay=False, path_type=str),
    help="Also write the module of the game's scenarios and invariants (run over the game "
    "module's names).",
)
@click.option(
    "--stop-after",
    metavar="STAGE",
    help="Write the IR as it stands after this stage (lower or later; see --stages) instead "
    "of the module.",
)
@click.option(
    "--without",
    multiple=True,
    metavar="STAGE",
    help="Leave out this optimisation stage (repeatable); the games play the same.",
)
@click.option("--stages", "list_stages", is_flag=True, help="List the compiler's stages and stop.")
@game_options
def compile_command(
    path: str,
    output: str | None,
    scenarios_output: str | None,
    stop_after: str | None,
    without: tuple[str, ...],
    list_stages: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Write the Python module that the compiler generates for a game (the game alone)."""
    # The compiler's stages are read only here: the other commands never load the compiler.
    from compiler.driver import OPTIMISATIONS, STAGES
    from compiler.ir_text import ir_text

    if list_stages:
        for name, stage in STAGES:
            kind = "optimisation" if name in OPTIMISATIONS else "stage"
            width = max(len(each) for each, _ in STAGES)
            click.echo(f"{name:<{width}} {kind:<12} {(stage.__doc__ or '').splitlines()[0]}")
        return
    if output is None:
        raise click.UsageError("Missing option '-o' / '--output'.")
    names = [name for name, _ in STAGES]
    with_ir = names[names.index("lower") : -1]
    if stop_after is not None and stop_after not in with_ir:
        raise click.BadParameter(
            f"{stop_after!r} is not a stage with an IR; choose from {', '.join(with_ir)}",
            param_hint="'--stop-after'",
        )
    for name in without:
        if name not in OPTIMISATIONS:
            raise click.BadParameter(
                f"{name!r} is not an optimisation stage; choose from "
                + ", ".join(sorted(OPTIMISATIONS)),
                param_hint="'--without'",
            )
    ctx = compiler.compile_game(  # nothing is written on errors
        path, expansions, variants, map_path, stop_after=stop_after, without=without
    )
    if stop_after:
        texts = [(output, ir_text(ctx.module))]
    else:
        texts = [(output, ctx.python)]
        if scenarios_output:
            texts.append((scenarios_output, ctx.scenarios_python))
    for name, text in texts:
        try:
            with click.open_file(name, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise Failure(f"error: cannot write {name}: {error.strerror or error}") from None


@click.command("diff")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@game_options
def diff_command(path: str, variants, expansions, map_path) -> None:
    """List, in words, every declaration the expansions and variants add, replace or remove."""
    with reported():
        from metro.analysis.diff import (
            describe_patches,  # the front end: imported only when asked for
        )

        changes = describe_patches(path, expansions=expansions, variants=variants)
    if not changes:
        say("no changes (name expansions with --with and variants with --variant)")
    for change in changes:
        say(str(change))


@click.command("lsp")
def lsp_command() -> None:
    """Run the language server for editors (LSP over standard input and output).

    Needs the lsp extra: pip install 'metro-games[lsp]'.
    """
    try:
        from metro.lsp.server import serve
    except ImportError as error:
        if error.name not in ("pygls", "lsprotocol") and not str(error.name).startswith("pygls."):
            raise
        raise Failure(
            "error: `metro lsp` needs the lsp extra: pip install 'metro-games[lsp]'"
        ) from None
    serve()


@click.command("fmt")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a file is not formatted.")
@click.option("--diff", "show_diff", is_flag=True, help="Change nothing; print what would change.")
def fmt_command(paths: tuple[str, ...], check: bool, show_diff: bool) -> None:
    """Lay out .metro files in the one canonical layout, keeping every comment.

    Each PATH is a .metro file or a directory searched for them; `-` reads standard input
    and writes the result to standard output. Exit status 1 if a file has errors, or, with
    --check, if one would change.
    """
    # imported here: the formatter needs the front end, which `metro simulate` never loads
    from metro.fmt import format_file, format_stdin, metro_files, write_atomically

    if paths == ("-",):
        say(format_stdin(sys.stdin.read()), nl=False)
        return
    changed = unchanged = failed = 0
    for path in metro_files(list(paths)):
        try:
            result = format_file(path)
        except CompileError as error:
            say(error.render(), err=True)
            failed += 1
            continue
        if not result.changed:
            unchanged += 1
            continue
        changed += 1
        if show_diff:
            say(result.diff(), nl=False)
        elif check:
            say(f"would reformat {path}", err=True)
        else:
            try:
                write_atomically(path, result.after)
            except OSError as error:
                say(f"{path}: error: cannot write the file: {error.strerror or error}", err=True)
                failed += 1
                changed -= 1
                continue
            say(f"reformatted {path}", err=True)
    verb = "would be reformatted" if check or show_diff else "reformatted"
    summary = f"{plural(changed, 'file')} {verb}, {unchanged} unchanged"
    say(summary + (f", {failed} with errors" if failed else ""), err=True)
    if failed or (check and changed):
        raise click.exceptions.Exit(1)
