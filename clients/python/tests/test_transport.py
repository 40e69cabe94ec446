"""Retries and Server-Sent Events against a tiny local HTTP server that counts what reaches it."""

from __future__ import annotations

import http.server
import threading
import unittest
from collections.abc import Iterator
from contextlib import contextmanager

from agentbox_client import Agentbox, AgentboxError, ApiKey
from agentbox_client._sse import read_sse
from agentbox_client._transport import retry_after_seconds

from .support import refusal


class _Counting(http.server.BaseHTTPRequestHandler):
    """/busy answers 503 with Retry-After: 0; /drop closes the connection without an answer; /sse sends two messages."""

    seen: list[str]

    def _answer(self) -> None:
        self.seen.append(f"{self.command} {self.path}")
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        if self.path.startswith("/drop"):
            self.close_connection = True
            return
        if self.path.startswith("/sse"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b": hello\r\nid: 1\r\nevent: output\r\ndata: a\r\ndata: b\r\n\r\nretry: 5\ndata: c\n\n")
            return
        body = b'{"error":"ABX_ERR_ADAPTER_UNAVAILABLE","message":"busy"}'
        self.send_response(503)
        self.send_header("retry-after", "0")
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the counts are what the tests read


@contextmanager
def counting_server() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    handler = type("Handler", (_Counting,), {"seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


class Retries(unittest.TestCase):
    def test_a_get_is_retried_after_503_with_retry_after_a_post_never(self) -> None:
        with counting_server() as (url, seen):
            box = Agentbox(url, ApiKey("k"), retries=2)
            err = refusal(lambda: box.call("GET /v1/meta"))
            self.assertEqual((err.code, err.status, err.message), ("ABX_ERR_ADAPTER_UNAVAILABLE", 503, "busy"))
            self.assertEqual(seen, ["GET /v1/meta"] * 3, "a GET: the first try and two retries")
            seen.clear()
            self.assertEqual(refusal(lambda: box.beads.create({"title": "x"})).status, 503)
            self.assertEqual(seen, ["POST /v1/beads"], "a POST once")
            seen.clear()
            refusal(lambda: box.egress.put({"allow_domains": []}))
            refusal(lambda: box.memory.delete("n", "m"))
            self.assertEqual(seen, ["PUT /v1/sandbox/egress", "DELETE /v1/memory/n/m"], "PUT and DELETE once each")

    def test_a_get_is_retried_after_a_dropped_connection_a_post_never(self) -> None:
        with counting_server() as (url, seen):
            box = Agentbox(url + "/drop", ApiKey("k"), retries=1)
            self.assertEqual(refusal(box.meta).code, "ABX_CLIENT_UNREACHABLE")
            self.assertEqual(seen, ["GET /drop/v1/meta"] * 2, "the path prefix kept; one retry")
            seen.clear()
            err = refusal(lambda: box.events.append({"kind": "x", "data": {}}))
            self.assertEqual((err.code, err.status), ("ABX_CLIENT_UNREACHABLE", 0))
            self.assertEqual(seen, ["POST /drop/v1/events"])

    def test_a_retry_after_longer_than_the_limit_fails_at_once(self) -> None:
        self.assertEqual(retry_after_seconds("7"), 7.0)
        self.assertEqual(retry_after_seconds("Thu, 01 Jan 1970 00:00:00 GMT"), 0.0)
        self.assertIsNone(retry_after_seconds("soon"))
        self.assertIsNone(retry_after_seconds(None))


class _Recording(http.server.BaseHTTPRequestHandler):
    """Notes each request's path and Authorization header; answers a made-up proof."""

    seen: list[tuple[str, str | None]]

    def do_GET(self) -> None:
        self.seen.append((self.path.split("?")[0], self.headers.get("authorization")))
        body = b'{"proof":"00"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class KeyProof(unittest.TestCase):
    def test_the_key_proof_is_asked_without_the_credential(self) -> None:
        # Whatever answers at a URL must prove it holds the key before it gets it: the question never carries it.
        seen: list[tuple[str, str | None]] = []
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Recording,), {"seen": seen}))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            box = Agentbox(f"http://127.0.0.1:{server.server_address[1]}", ApiKey("the-key"))
            box.key_proof("ab" * 32)
            box.call("GET /v1/auth/key-proof", query={"challenge": "ab" * 32})
            box.meta()
        finally:
            server.shutdown()
            server.server_close()
        self.assertEqual(seen, [("/v1/auth/key-proof", None), ("/v1/auth/key-proof", None), ("/v1/meta", "Bearer the-key")])


class ServerSentEvents(unittest.TestCase):
    def test_messages_from_a_real_answer(self) -> None:
        with counting_server() as (url, _):
            messages = list(Agentbox(url + "/sse").stream("GET /v1/events/stream"))
        self.assertEqual([(m.event, m.data, m.id) for m in messages], [("output", "a\nb", "1"), ("message", "c", "1")])

    def test_line_ends_split_across_reads(self) -> None:
        class Chunks:
            def __init__(self, parts: list[bytes]) -> None:
                self.parts = parts

            def read1(self, size: int = -1, /) -> bytes:
                return self.parts.pop(0) if self.parts else b""

        # A \r\n split between two reads is one line end; a UTF-8 character split is one character.
        parts = [b"data: x\r", b"\n\r", b"\ndata: \xc3", b"\xa9\n\n", b"data: unterminated"]
        self.assertEqual([m.data for m in read_sse(Chunks(parts))], ["x", "é"])


class Inputs(unittest.TestCase):
    def test_bad_inputs_are_client_errors(self) -> None:
        for url in ("not a url", "ftp://example.org", "http://"):
            err = refusal(lambda: Agentbox(url))
            self.assertEqual((err.code, err.status), ("ABX_CLIENT_INPUT", 0), url)
        box = Agentbox("http://127.0.0.1:9")
        self.assertRegex(refusal(lambda: box.agents.get("")).message, "path parameter id is missing")
        self.assertEqual(refusal(lambda: box.call("GET /nope")).code, "ABX_CLIENT_INPUT")  # type: ignore[arg-type]
        self.assertIsInstance(refusal(lambda: box.call("GET /nope")), AgentboxError)  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
