"""The `metro` command line: check, compile, simulate and play games written as .metro files.

One module per command group (`authoring`, `runs`, `conformance`, `play`, `pictures`, `serve`),
and `options` for what they share; this module only gathers them into the `metro` group.
"""

from __future__ import annotations

import click

from metro.cli.authoring import (
    check,
    compile_command,
    diff_command,
    fmt_command,
    lsp_command,
    test_command,
)
from metro.cli.conformance import conform_command, testgen_command
from metro.cli.options import reported
from metro.cli.pictures import render_command, replay_command
from metro.cli.play import play
from metro.cli.runs import compare_command, playthrough_command, simulate_command
from metro.cli.serve import serve_command


class MetroGroup(click.Group):
    """The command group; every subcommand runs inside `reported`."""

    def invoke(self, ctx: click.Context):
        """Run the chosen subcommand with errors reported cleanly."""
        with reported():
            return super().invoke(ctx)


@click.group(cls=MetroGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="metro-games", prog_name="metro")
def main() -> None:
    """Check, compile, simulate and play board games written as .metro rule files."""


for _command in (
    check,
    test_command,
    compile_command,
    simulate_command,
    playthrough_command,
    testgen_command,
    conform_command,
    compare_command,
    diff_command,
    lsp_command,
    serve_command,
    fmt_command,
    play,
    render_command,
    replay_command,
):
    main.add_command(_command)
