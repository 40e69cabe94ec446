"""The client's one error type: the API's {"error": ABX_ERR_*, "message"} answer, or a failure to reach it."""

from __future__ import annotations

import json
from typing import Literal, TypeAlias

from ._routes import ErrorCode

# Codes of the client's own, for a call that got no API answer (status 0) or an answer that is not the API's.
ClientErrorCode: TypeAlias = Literal[
    "ABX_CLIENT_UNREACHABLE",
    "ABX_CLIENT_TIMEOUT",
    "ABX_CLIENT_BAD_RESPONSE",
    "ABX_CLIENT_INPUT",
]
AgentboxErrorCode: TypeAlias = ErrorCode | ClientErrorCode


class AgentboxError(Exception):
    """A refused or failed call: `code` is the API's ABX_ERR_* (or an ABX_CLIENT_*), `status` its HTTP status (0 when none came)."""

    def __init__(self, code: AgentboxErrorCode, status: int, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.code: AgentboxErrorCode = code
        self.status = status
        self.message = message
        # The request id the API answered with (x-request-id), to find the call in its log.
        self.request_id = request_id

    def __repr__(self) -> str:
        return f"AgentboxError({self.code!r}, {self.status}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}"


def error_from_answer(status: int, body: bytes, request_id: str | None) -> AgentboxError:
    """The error of a non-2xx answer: the API's code and message, or ABX_CLIENT_BAD_RESPONSE with the first bytes."""
    text = body.decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None  # not the API's JSON (a proxy's page, say): said so below
    if isinstance(parsed, dict):
        code = parsed.get("error")
        message = parsed.get("message")
        if isinstance(code, str) and code.startswith("ABX_ERR_"):
            # A code newer than this client's table is kept as sent: the API's word is the one to show.
            return AgentboxError(code, status, message if isinstance(message, str) else code, request_id)  # type: ignore[arg-type]
    return AgentboxError("ABX_CLIENT_BAD_RESPONSE", status, f"HTTP {status} without an API error body: {text[:200]}", request_id)
