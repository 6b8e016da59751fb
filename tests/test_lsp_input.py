"""`metro lsp` on bad input, sent as raw bytes: it answers every request and reads on after a bad frame."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading

import pytest

pytest.importorskip("pygls")

from metro.lsp.frames import MAX_FRAME_BYTES

TIMEOUT = 120  # seconds for one answer (the machine may be busy)
INITIALIZE = {"processId": None, "rootUri": None, "capabilities": {}}


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(message_id: int, method: str, params: dict) -> dict:
    return {"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}


class RawClient:
    """`python -m metro lsp` with its standard input written byte by byte and its answers collected."""

    def __init__(self, tmp_path):
        self.log_path = tmp_path / "stderr.txt"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "metro", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self.answers: queue.Queue[dict] = queue.Queue()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self) -> None:
        stdout = self.process.stdout
        while True:
            length = None
            while (line := stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            message = json.loads(stdout.read(length))
            if "id" in message and "method" not in message:
                self.answers.put(message)

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer(self) -> dict:
        return self.answers.get(timeout=TIMEOUT)

    def log_text(self) -> str:
        """What the server wrote on its standard error (once stopped)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.log.closed:
            return
        self.process.kill()
        self.process.wait()
        self.reader.join(TIMEOUT)  # it stops at the end of the server's output
        self.process.stdin.close()
        self.process.stdout.close()
        self.log.close()


@pytest.fixture
def client(tmp_path):
    session = RawClient(tmp_path)
    yield session
    session.stop()


def test_a_frame_over_the_size_limit_is_refused_and_the_next_one_answered(client):
    body = json.dumps(request(1, "initialize", INITIALIZE)).encode()
    client.send(b"Content-Length: 99999999999\r\n\r\n" + body)
    client.send(frame(request(2, "initialize", INITIALIZE)))
    refused = client.answer()
    assert refused["id"] == 1 and refused["error"]["code"] == -32600
    assert f"the limit is {MAX_FRAME_BYTES} bytes" in refused["error"]["message"]
    assert "capabilities" in client.answer()["result"]
    assert client.process.poll() is None


def test_after_a_frame_without_content_length_the_server_answers_again(client):
    body = json.dumps(request(1, "initialize", INITIALIZE)).encode()
    client.send(b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body)
    for message_id in (2, 3):
        client.send(frame(request(message_id, "initialize", INITIALIZE)))
    refused = client.answer()
    assert refused["id"] == 1 and "without a Content-Length" in refused["error"]["message"]
    assert [client.answer()["id"], client.answer()["id"]] == [2, 3]


def test_garbage_between_frames_is_skipped(client):
    client.send(b"hello\r\n" + frame(request(1, "initialize", INITIALIZE)))
    refused = client.answer()
    assert refused["id"] is None and refused["error"]["code"] == -32600
    assert client.answer()["id"] == 1


def test_a_request_with_ill_typed_params_gets_an_error_answer(client):
    client.send(frame(request(1, "initialize", INITIALIZE)))
    assert client.answer()["id"] == 1
    client.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    hover = request(2, "textDocument/hover", {"textDocument": 5, "position": "here"})
    client.send(frame(hover))
    client.send(frame(request(3, "shutdown", None)))
    answer = client.answer()
    assert answer["id"] == 2 and answer["error"]["code"] == -32602
    assert "textDocument/hover" in answer["error"]["message"]
    assert client.answer() == {"jsonrpc": "2.0", "id": 3, "result": None}
    client.stop()
    log = client.log_text()
    assert "Traceback" not in log and "refused a message: Invalid Params" in log


def test_the_tree_cache_is_bounded_by_the_size_of_the_texts(monkeypatch):
    from metro.lsp import analysis

    monkeypatch.setattr(analysis, "MAX_CACHED_TEXT_BYTES", 20_000)
    files = analysis.EditorFiles()
    lines = "".join(f"  const C{i} = {i}\n" for i in range(400))  # about 7 KB a version
    for version in range(10):
        text = f'game "Big" {{\n  const V = {version}\n{lines}}}\n'
        files.parse(text, "big.metro")
        assert files.cached_text_bytes() <= 20_000
    assert files.parse(text, "big.metro") is files.parse(text, "big.metro")  # the newest is kept


def test_a_broken_length_header_is_skipped_without_reading_it_again(client):
    client.send(b"Content-Length: 12 and more\nContent-Length: 5x\r\n\r\n")
    client.send(frame(request(1, "initialize", INITIALIZE)))
    answers = [client.answer() for _ in range(3)]
    assert [a["id"] for a in answers] == [None, None, 1]


def test_a_body_that_is_not_json_or_not_a_message_gets_an_error_answer(client):
    for body in (b'{"jsonrpc": "2.0", "id": 4, "method": "shutdown"', b"[1, 2]", b"\xff\xfe"):
        client.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    client.send(frame(request(5, "initialize", INITIALIZE)))
    answers = [client.answer() for _ in range(4)]
    assert [(a["id"], a.get("error", {}).get("code")) for a in answers] == [
        (4, -32700),
        (None, -32600),
        (None, -32700),
        (5, None),
    ]


def test_a_request_after_shutdown_is_refused(client):
    client.send(frame(request(1, "initialize", INITIALIZE)))
    client.send(frame(request(2, "shutdown", None)))
    assert [client.answer()["id"], client.answer()["id"]] == [1, 2]
    client.send(frame(request(3, "textDocument/documentSymbol", {"textDocument": {"uri": "x"}})))
    answer = client.answer()
    assert answer["id"] == 3 and answer["error"]["code"] == -32600
