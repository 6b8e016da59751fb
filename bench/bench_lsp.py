"""Language-server speed on a keystroke: from an edit of a rule file to its diagnostics.

Run from the repository root (needs the lsp extra):
`python bench/bench_lsp.py [--game tokyo_metro] [--edits 10] [--json]`.

Two measurements on the game's rules.metro, each the median over `--edits` edits:

- end to end: `metro lsp` started as an editor starts it (a pygls client over standard
  input and output); wall-clock time from sending `didChange` to receiving the diagnostics,
  for an edit that breaks a name and for the edit that mends it. The server shows what the
  stages through `check` found as soon as they finish, then runs the others (map checks,
  lowering, code generation: every stage `metro check` runs) and shows what they add. It
  waits 0.1 s for more keystrokes before it compiles; that pause is included.
- in process: the CPU time of the whole compilation the server runs for an edit (the changed
  file parsed again, the others' trees reused), as a ratio to a cold `metro check` of the
  same game (every file parsed) in the same process.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import time

import click
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from compiler import compile_game
from loader.games import game_path
from metro.lsp.analysis import Compilation, EditorFiles
from metro.lsp.contexts import contexts_for

BREAK = ("bank += amount", "bank += amont")  # an unknown name in Tokyo Metro's `pay`


def cpu_seconds(run) -> float:
    """CPU time of one call."""
    started = time.process_time()
    run()
    return time.process_time() - started


async def end_to_end(path: str, text: str, broken: str, edits: int) -> dict:
    """Median seconds from didChange to diagnostics, for breaking and for mending edits."""
    client = LanguageClient("bench", "1")
    arrived: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri:
            arrived.put_nowait(list(params.diagnostics))

    async def until(test) -> None:
        while not test(await asyncio.wait_for(arrived.get(), 300)):
            pass

    uri = from_fs_path(path)
    await client.start_io(sys.executable, "-m", "metro", "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    item = types.TextDocumentItem(uri=uri, language_id="metro", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
    await until(lambda found: found == [])
    breaking, mending = [], []
    version = 1
    for _ in range(edits):
        for new_text, times, test in (
            (broken, breaking, lambda found: found != []),
            (text, mending, lambda found: found == []),
        ):
            version += 1
            started = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=new_text)],
                )
            )
            await until(test)
            times.append(time.perf_counter() - started)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {"breaking": statistics.median(breaking), "mending": statistics.median(mending)}


def in_process(path: str, text: str, broken: str, edits: int) -> dict:
    """CPU seconds of the server's compilation of an edit, and of a cold `metro check`."""
    files = EditorFiles()
    context = contexts_for(path, files)[0]
    Compilation(context, files).run()  # the trees of the unchanged files are now cached
    keystroke = []
    for index in range(edits):
        # A different text each time: the changed file is parsed anew, as after a keystroke.
        files.set_text(path, text + f"\n# edit {index}\n")
        keystroke.append(cpu_seconds(lambda: Compilation(context, files).run()))
    cold = [cpu_seconds(lambda: compile_game(path)) for _ in range(3)]
    files.set_text(path, broken)
    breaking = cpu_seconds(lambda: Compilation(context, files).run())
    return {
        "keystroke": statistics.median(keystroke),
        "keystroke_breaking": breaking,
        "cold_check": statistics.median(cold),
    }


@click.command()
@click.option("--game", default="tokyo_metro", show_default=True, help="A shipped game.")
@click.option("--edits", default=10, show_default=True, help="Edits; the median is reported.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def main(game: str, edits: int, as_json: bool) -> None:
    """Time the language server's answer to an edit of a game's rules.metro."""
    path = os.path.abspath(os.path.join(game_path(game), "rules.metro"))
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    broken = text.replace(*BREAK, 1) if BREAK[0] in text else text + "\nconst BROKEN = nope\n"
    local = in_process(path, text, broken, edits)
    remote = asyncio.run(end_to_end(path, text, broken, edits))
    result = {
        "game": game,
        "edits": edits,
        "end_to_end_seconds": remote,
        "in_process_cpu_seconds": local,
        "keystroke_vs_cold_check": local["keystroke"] / local["cold_check"],
        "load_average": os.getloadavg()[0],
    }
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    click.echo(
        f"{game}: median of {edits} edits of rules.metro (load average {result['load_average']:.1f})"
    )
    click.echo(
        f"  end to end, edit -> diagnostics: error found by `check` {remote['breaking'] * 1000:.0f} ms, "
        f"mended (shown after `check`) {remote['mending'] * 1000:.0f} ms"
    )
    click.echo(
        f"  in process, CPU: every stage after a keystroke {local['keystroke'] * 1000:.0f} ms "
        f"(with an error: {local['keystroke_breaking'] * 1000:.0f} ms), "
        f"cold metro check {local['cold_check'] * 1000:.0f} ms "
        f"(ratio {result['keystroke_vs_cold_check']:.2f})"
    )


if __name__ == "__main__":
    main()
