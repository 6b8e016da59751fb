"""The `metro` command line: check, compile, simulate and play games written as .metro files.

One module per command group (`authoring`, `runs`, `tournament`, `conformance`, `play`,
`pictures`, `serve`), and `options` for what they share; this module only gathers them into the
`metro` group.
A command's module is imported when that command is asked for (or the group's help, which
lists them all), so a run imports only what its command needs: `metro simulate` none of the
renderer, the conformance tester or the terminal player (about 3 MiB resident less).
"""

from __future__ import annotations

import importlib

import click

from metro.cli.options import reported

# Every command: its name and where it is defined ("module:attribute" under metro.cli).
COMMANDS = {
    "check": "authoring:check",
    "test": "authoring:test_command",
    "compile": "authoring:compile_command",
    "simulate": "runs:simulate_command",
    "playthrough": "runs:playthrough_command",
    "testgen": "conformance:testgen_command",
    "conform": "conformance:conform_command",
    "reference": "conformance:reference_command",
    "perft": "conformance:perft_command",
    "compare": "runs:compare_command",
    "tournament": "tournament:tournament_command",
    "diff": "authoring:diff_command",
    "lsp": "authoring:lsp_command",
    "serve": "serve:serve_command",
    "fmt": "authoring:fmt_command",
    "play": "play:play",
    "render": "pictures:render_command",
    "replay": "pictures:replay_command",
    "import": "city_import:import_group",
}


class MetroGroup(click.Group):
    """The command group: each command imported when it is first asked for, and run inside
    `reported`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, whether its module was imported yet or not."""
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command of that name, its module imported if it was not yet (None: no such one)."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, _, attribute = COMMANDS[cmd_name].partition(":")
            command = getattr(importlib.import_module(f"metro.cli.{module}"), attribute)
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context):
        """Run the chosen subcommand with errors reported cleanly."""
        with reported():
            return super().invoke(ctx)


@click.group(cls=MetroGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="metro-games", prog_name="metro")
def main() -> None:
    """Check, compile, simulate and play board games written as .metro rule files."""
