"""Server-Sent Events read from an HTTP answer, as the API's output, event and approval streams send them."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

_LINE_END = re.compile(r"\r\n|\r|\n")


class _Readable(Protocol):
    def read1(self, size: int = ..., /) -> bytes: ...


@dataclass(frozen=True)
class SseMessage:
    """One dispatched message: its `event` name (default "message"), `data` lines joined, and last `id`."""

    event: str
    data: str
    id: str | None = None


def read_sse(body: _Readable) -> Iterator[SseMessage]:
    """
    The messages of an event stream in order, until the body ends. Comments (keep-alives) and
    `retry:` are skipped; a message without data is not dispatched, as the EventSource spec says.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    buffer = ""
    event = ""
    data: list[str] = []
    last_id: str | None = None
    while True:
        # read1: what has arrived (at most one read of the socket), so a message is seen when it comes.
        chunk = body.read1(65536)
        buffer += decoder.decode(chunk, final=not chunk)
        while True:
            end = _LINE_END.search(buffer)
            # A lone \r at the end may be the first half of \r\n: wait for the next bytes.
            if end is None or (end.group() == "\r" and end.end() == len(buffer) and chunk):
                break
            line, buffer = buffer[: end.start()], buffer[end.end() :]
            if line == "":
                if data:
                    yield SseMessage(event or "message", "\n".join(data), last_id)
                event, data = "", []
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "event":
                    event = value
                elif field == "data":
                    data.append(value)
                elif field == "id":
                    last_id = value
        if not chunk:
            return
