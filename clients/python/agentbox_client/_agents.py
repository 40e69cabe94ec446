"""Agent processes (start, list, read and follow output, terminate, type, exec) and their workspace files."""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, cast

from ._errors import AgentboxError
from ._route import route
from ._routes import (
    DeleteV1AgentsIdFilesRestResponse,
    DeleteV1AgentsIdResponseAgent,
    GetV1AgentsIdFilesRestResponse,
    GetV1AgentsIdOutputResponseChunksItem,
    GetV1AgentsIdResponseAgent,
    GetV1AgentsResponseAgentsItem,
    PostV1AgentsBody,
    PostV1AgentsIdExecBody,
    PostV1AgentsIdFilesRestResponse,
    PostV1AgentsResponseAgent,
    PutV1AgentsIdFilesRestResponse,
)
from ._transport import Transport

# An agent's record, as GET /v1/agents/{id} answers it.
Agent: TypeAlias = GetV1AgentsIdResponseAgent
# One chunk of an agent's captured output.
OutputChunk: TypeAlias = GetV1AgentsIdOutputResponseChunksItem


@dataclass(frozen=True)
class Output:
    """A chunk of output, as following an agent yields it."""

    chunk: OutputChunk
    type: Literal["output"] = "output"


@dataclass(frozen=True)
class End:
    """The agent's final record: following it ends here."""

    agent: Agent
    type: Literal["end"] = "end"


OutputEvent: TypeAlias = Output | End


@dataclass(frozen=True)
class WorkspaceFile:
    """A workspace file as read: status (304 when if_none_match held, with no bytes), ETag, permission bits and bytes."""

    status: int
    etag: str | None
    mode: str | None
    data: bytes


def _need(answer: Any, field: str, key: str) -> Any:
    value = answer.get(field) if isinstance(answer, dict) else None
    if value is None:
        raise AgentboxError("ABX_CLIENT_BAD_RESPONSE", 200, f"{key}: the answer lacks its {field}")
    return value


class Agents:
    """Agent processes: start, list, read and follow output, terminate, type into a terminal, exec."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    @route("POST /v1/agents")
    def spawn(self, body: PostV1AgentsBody) -> PostV1AgentsResponseAgent:
        """Start an agent by command: name, command, args, env, cwd, limits, tty (the route's own body)."""
        return cast(PostV1AgentsResponseAgent, _need(self._t.send("POST", "/v1/agents", json_body=body).json(), "agent", "POST /v1/agents"))

    @route("GET /v1/agents")
    def list(self) -> builtins.list[GetV1AgentsResponseAgentsItem]:
        """Every agent the box knows, oldest first (an agent token may not list: ABX_ERR_AGENT_SCOPE)."""
        return cast(builtins.list[GetV1AgentsResponseAgentsItem], (self._t.send("GET", "/v1/agents").json() or {}).get("agents", []))

    @route("GET /v1/agents/{id}")
    def get(self, id: str) -> Agent:
        """One agent's record, with its recent egress refusals."""
        return cast(Agent, _need(self._t.send("GET", "/v1/agents/{id}", params={"id": id}).json(), "agent", "GET /v1/agents/{id}"))

    @route("GET /v1/agents/{id}/output")
    def output(self, id: str, after: int = 0) -> builtins.list[OutputChunk]:
        """The captured output after chunk `after`, as it is now."""
        answer = self._t.send("GET", "/v1/agents/{id}/output", params={"id": id}, query={"after": after, "follow": False}).json()
        return cast(builtins.list[OutputChunk], (answer or {}).get("chunks", []))

    @route("GET /v1/agents/{id}/output")
    def follow(self, id: str, after: int = 0, timeout: float | None = None) -> Iterator[OutputEvent]:
        """
        The output live: an Output per chunk, then End with the record once the agent has ended.
        Stop early by leaving the loop; `timeout` bounds the wait for each next message.
        """
        stream = self._t.stream("/v1/agents/{id}/output", params={"id": id}, query={"after": after, "follow": True}, timeout=timeout)
        for message in stream:
            if message.event == "output":
                yield Output(cast(OutputChunk, json.loads(message.data)))
            elif message.event == "end":
                yield End(cast(Agent, json.loads(message.data)["agent"]))
                return

    @route("DELETE /v1/agents/{id}")
    def terminate(self, id: str, grace_ms: int | None = None) -> DeleteV1AgentsIdResponseAgent:
        """SIGTERM, then SIGKILL after `grace_ms` (the API's default when None); the final record."""
        answer = self._t.send("DELETE", "/v1/agents/{id}", params={"id": id}, query={"graceMs": grace_ms}).json()
        return cast(DeleteV1AgentsIdResponseAgent, _need(answer, "agent", "DELETE /v1/agents/{id}"))

    @route("POST /v1/agents/{id}/input")
    def input(self, id: str, data: str) -> None:
        """Type `data` into a tty agent's terminal, as keystrokes (end a line with \\r)."""
        self._t.send("POST", "/v1/agents/{id}/input", params={"id": id}, json_body={"data": data})

    @route("POST /v1/agents/{id}/exec")
    def exec(self, id: str, body: PostV1AgentsIdExecBody) -> dict[str, Any]:
        """Run a command in a running agent's sandbox; the command's own record (execOf names the agent)."""
        answer = self._t.send("POST", "/v1/agents/{id}/exec", params={"id": id}, json_body=body).json()
        return cast(dict[str, Any], _need(answer, "agent", "POST /v1/agents/{id}/exec"))


def _files_route(id: str, path: str) -> tuple[str, dict[str, str]]:
    """The route of an agent's workspace path: the directory itself, or a path below it."""
    below = path.lstrip("/")
    return ("/v1/agents/{id}/files", {"id": id}) if below == "" else ("/v1/agents/{id}/files/{*}", {"id": id, "*": below})


class Files:
    """
    An agent's workspace files. `path` is relative to its working directory ("" is the directory
    itself); links are listed, never followed; writes are atomic.
    """

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    @route("GET /v1/agents/{id}/files", "GET /v1/agents/{id}/files/{*}")
    def list(self, id: str, path: str = "") -> GetV1AgentsIdFilesRestResponse:
        """A directory's entries (name, type, size, mode, mtime, a link's target)."""
        template, params = _files_route(id, path)
        return cast(GetV1AgentsIdFilesRestResponse, self._t.send("GET", template, params=params, query={"list": "true"}).json())

    @route("GET /v1/agents/{id}/files/{*}")
    def read(self, id: str, path: str, if_none_match: str | None = None) -> WorkspaceFile:
        """A file's bytes with its ETag and mode."""
        template, params = _files_route(id, path)
        answer = self._t.send("GET", template, params=params, headers={"if-none-match": if_none_match}, accept=(304,))
        return WorkspaceFile(answer.status, answer.headers.get("etag"), answer.headers.get("x-file-mode"), answer.body)

    @route("PUT /v1/agents/{id}/files", "PUT /v1/agents/{id}/files/{*}")
    def write(
        self, id: str, path: str, data: bytes | str, mode: str | None = None, if_match: str | None = None, if_none_match: str | None = None
    ) -> PutV1AgentsIdFilesRestResponse:
        """Create or replace a file (parents made); `mode` sets its bits (e.g. "0755"); if_none_match="*" creates only."""
        template, params = _files_route(id, path)
        raw = data.encode() if isinstance(data, str) else data
        headers = {"x-file-mode": mode, "if-match": if_match, "if-none-match": if_none_match}
        return cast(PutV1AgentsIdFilesRestResponse, self._t.send("PUT", template, params=params, headers=headers, raw=raw).json())

    @route("DELETE /v1/agents/{id}/files", "DELETE /v1/agents/{id}/files/{*}")
    def delete(self, id: str, path: str, recursive: bool = False) -> DeleteV1AgentsIdFilesRestResponse:
        """Remove a file, a link or an empty directory; `recursive` a whole tree (links inside removed, not followed)."""
        template, params = _files_route(id, path)
        answer = self._t.send("DELETE", template, params=params, query={"recursive": "true" if recursive else None})
        return cast(DeleteV1AgentsIdFilesRestResponse, answer.json())

    @route("GET /v1/agents/{id}/files", "GET /v1/agents/{id}/files/{*}")
    def tar(self, id: str, path: str = "") -> bytes:
        """A directory as a tar archive's bytes."""
        template, params = _files_route(id, path)
        return self._t.send("GET", template, params=params, query={"format": "tar"}).body

    @route("POST /v1/agents/{id}/files", "POST /v1/agents/{id}/files/{*}")
    def untar(self, id: str, path: str, tar: bytes) -> PostV1AgentsIdFilesRestResponse:
        """Extract a tar archive into a directory: every entry checked, all or nothing."""
        template, params = _files_route(id, path)
        answer = self._t.send("POST", template, params=params, raw=tar, content_type="application/x-tar")
        return cast(PostV1AgentsIdFilesRestResponse, answer.json())
