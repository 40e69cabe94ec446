"""One HTTP call of the client over http.client: the URL from a route template, the credential, and retries where they are safe."""

from __future__ import annotations

import email.utils
import http.client
import json
import re
import ssl
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from ._auth import Credential, authorization
from ._errors import AgentboxError, error_from_answer
from ._sse import SseMessage, read_sse

_PARAM = re.compile(r"\{([^}]+)\}")
_BACKOFF = 0.1
_USER_AGENT = "agentbox-python/0.1"
# Routes sent without the credential: the key proof says whether a URL's box holds the key before the
# key is sent there (a redirect is an error here, never followed: http.client follows none).
_UNCREDENTIALED = {("GET", "/v1/auth/key-proof")}


@dataclass(frozen=True)
class Answer:
    """A whole answer: status, headers (names lower-case) and body bytes."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON (None for an empty one, as a 204 has)."""
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            text = self.body[:200].decode("utf-8", "replace")
            raise AgentboxError("ABX_CLIENT_BAD_RESPONSE", self.status, f"the answer is not JSON: {text}", self.headers.get("x-request-id")) from None


def _query_value(value: object) -> str:
    # JSON's spelling of booleans, which the API's query schemas read; str(True) would be "True".
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - time.time())


class Transport:
    """The HTTP layer the typed client stands on; a new connection per request (no state between calls)."""

    def __init__(self, url: str, credential: Credential | None, retries: int, max_retry_after: float, timeout: float | None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AgentboxError("ABX_CLIENT_INPUT", 0, f"the box URL {url!r} is not an absolute http or https URL (e.g. http://127.0.0.1:8080)")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._credential = credential
        self._retries = retries
        self._max_retry_after = max_retry_after
        self._timeout = timeout

    def target(self, path: str, params: Mapping[str, str] | None, query: Mapping[str, object] | None) -> str:
        """The request target (path and query) of a route template with its parameters."""

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            value = (params or {}).get(name)
            if not isinstance(value, str) or value == "":
                raise AgentboxError("ABX_CLIENT_INPUT", 0, f"{path}: the path parameter {name} is missing")
            # {*} is a path of its own: its slashes stay, each segment is encoded. A name the box listed with a byte
            # that is not UTF-8 holds it as a lone surrogate (U+DC00 plus the byte, Python's own surrogateescape):
            # it goes back as that byte.
            if name == "*":
                return "/".join(quote(s, safe="", errors="surrogateescape") for s in value.split("/"))
            return quote(value, safe="")

        pairs: list[str] = []
        for key, value in (query or {}).items():
            for v in value if isinstance(value, (list, tuple)) else [value]:
                if v is not None:
                    pairs.append(f"{quote(key, safe='')}={quote(_query_value(v), safe='')}")
        return self._prefix + _PARAM.sub(fill, path) + ("?" + "&".join(pairs) if pairs else "")

    def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        query: Mapping[str, object] | None = None,
        headers: Mapping[str, str | None] | None = None,
        json_body: object = None,
        raw: bytes | None = None,
        content_type: str = "application/octet-stream",
        accept: tuple[int, ...] = (),
    ) -> Answer:
        """Send and read the whole answer; an AgentboxError unless its status is 2xx or in `accept`."""
        conn, res = self._open(method, path, params, query, headers, json_body, raw, content_type, accept, self._timeout)
        try:
            return Answer(res.status, {k.lower(): v for k, v in res.getheaders()}, self._read(res, method, path))
        finally:
            conn.close()

    def stream(
        self,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        query: Mapping[str, object] | None = None,
        headers: Mapping[str, str | None] | None = None,
        timeout: float | None = None,
    ) -> Iterator[SseMessage]:
        """GET `path` as an event stream; its messages as they come. An `error` message raises the API's error."""
        conn, res = self._open("GET", path, params, query, {**(headers or {}), "accept": "text/event-stream"}, None, None, "", (), timeout)
        try:
            for message in read_sse(res):
                if message.event == "error":
                    raise _stream_error(message.data, res.status)
                yield message
        except TimeoutError:
            raise AgentboxError("ABX_CLIENT_TIMEOUT", 0, f"GET {path}: nothing came for {timeout} s") from None
        except (OSError, http.client.HTTPException) as err:
            raise AgentboxError("ABX_CLIENT_UNREACHABLE", 0, f"GET {path}: the stream broke: {err}") from err
        finally:
            # Closing the generator (a break, an exception) closes the connection: the box stops sending.
            conn.close()

    def _read(self, res: http.client.HTTPResponse, method: str, path: str) -> bytes:
        try:
            return res.read()
        except TimeoutError:
            raise AgentboxError("ABX_CLIENT_TIMEOUT", 0, f"{method} {path}: the answer did not finish within {self._timeout} s") from None
        except (OSError, http.client.HTTPException) as err:
            raise AgentboxError("ABX_CLIENT_UNREACHABLE", 0, f"{method} {path}: the answer broke off: {err}") from err

    def _connection(self, timeout: float | None) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _open(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None,
        query: Mapping[str, object] | None,
        headers: Mapping[str, str | None] | None,
        json_body: object,
        raw: bytes | None,
        content_type: str,
        accept: tuple[int, ...],
        timeout: float | None,
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """The connection and the answer's head, once its status is accepted; retries a GET where safe."""
        target = self.target(path, params, query)
        body = raw if raw is not None else None if json_body is None else json.dumps(json_body).encode()
        retries = self._retries if method == "GET" else 0
        attempt = 0
        while True:
            sent: dict[str, str] = {"user-agent": _USER_AGENT, "accept": "application/json"}
            sent.update({k.lower(): v for k, v in (headers or {}).items() if v is not None})
            if body is not None:
                sent["content-type"] = content_type if raw is not None else "application/json"
            # The key proof is asked to learn whether the box holds the key before it goes there: never with it.
            auth = None if (method, path) in _UNCREDENTIALED else authorization(self._credential, self._origin + target, method, body)
            if auth:
                sent["authorization"] = auth
            conn = self._connection(timeout)
            try:
                conn.request(method, target, body=body, headers=sent)
                res = conn.getresponse()
            except TimeoutError:
                conn.close()
                raise AgentboxError("ABX_CLIENT_TIMEOUT", 0, f"{method} {self._origin}{target}: no answer within {timeout} s") from None
            except (OSError, http.client.HTTPException) as err:
                conn.close()
                if attempt < retries:
                    time.sleep(_BACKOFF * 2**attempt)
                    attempt += 1
                    continue
                raise AgentboxError("ABX_CLIENT_UNREACHABLE", 0, f"cannot reach {self._origin}{target}: {err or type(err).__name__}") from err
            if 200 <= res.status < 300 or res.status in accept:
                return conn, res
            request_id = res.getheader("x-request-id")
            wait = retry_after_seconds(res.getheader("retry-after")) if res.status == 503 else None
            text = self._read(res, method, path)
            conn.close()
            if wait is not None and wait <= self._max_retry_after and attempt < retries:
                time.sleep(wait)
                attempt += 1
                continue
            raise error_from_answer(res.status, text, request_id)


def _stream_error(data: str, status: int) -> AgentboxError:
    try:
        body = json.loads(data)
        return AgentboxError(body.get("error", "ABX_ERR_INTERNAL"), status, body.get("message", "the stream failed"))
    except (ValueError, AttributeError):
        return AgentboxError("ABX_CLIENT_BAD_RESPONSE", status, f"the stream ended with an unreadable error: {data[:200]}")
