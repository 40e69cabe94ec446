"""The route families besides agents: approvals, input requests, beads, memory, the event log, egress, pods, workspace snapshots and the dashboard stream."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias, cast

from ._agents import WorkspaceFile
from ._route import route
from ._routes import (
    DeleteV1AgentsIdInputRequestsRequestIdResponse,
    DeleteV1MemoryNamespaceIdResponse,
    DeleteV1SnapshotsSidResponse,
    GetV1AgentsIdInputRequestsRequestIdResponse,
    GetV1ApprovalsIdResponse,
    GetV1ApprovalsResponse,
    GetV1BeadsIdResponse,
    GetV1BeadsQuery,
    GetV1BeadsReadyQuery,
    GetV1BeadsReadyResponse,
    GetV1BeadsResponse,
    GetV1EventsProofConsistencyQuery,
    GetV1EventsProofConsistencyResponse,
    GetV1EventsProofInclusionQuery,
    GetV1EventsProofInclusionResponse,
    GetV1EventsQuery,
    GetV1EventsResponse,
    GetV1EventsResponseItemsItem,
    GetV1EventsStreamQuery,
    GetV1InputRequestsIdResponse,
    GetV1InputRequestsResponse,
    GetV1MemoryNamespaceIdResponse,
    GetV1MemoryNamespaceQuery,
    GetV1MemoryNamespaceResponse,
    GetV1SandboxEgressResponse,
    GetV1SnapshotsQuery,
    GetV1SnapshotsResponse,
    GetV1SnapshotsSidDiffResponse,
    GetV1SnapshotsSidFilesRestResponse,
    GetV1SnapshotsSidResponse,
    PostV1AgentsIdInputRequestsResponse,
    PostV1AgentsIdRestoreResponse,
    PutV1SnapshotsSidWarmResponse,
    PostV1AgentsIdSnapshotsBody,
    PostV1AgentsIdSnapshotsResponse,
    PostV1ApprovalsIdBody,
    PostV1ApprovalsIdResponse,
    PostV1BeadsBody,
    PostV1BeadsIdClaimResponse,
    PostV1BeadsIdCloseBody,
    PostV1BeadsIdCloseResponse,
    PostV1BeadsResponse,
    PostV1EventsBody,
    PostV1EventsResponse,
    PostV1InputRequestsIdResponse,
    PostV1MemoryNamespaceBody,
    PostV1MemoryNamespaceResponse,
    PostV1MemoryNamespaceSearchBody,
    PostV1MemoryNamespaceSearchResponse,
    PutV1PodsRestResponse,
    PutV1SandboxEgressBody,
    PutV1SandboxEgressResponse,
)
from ._sse import SseMessage
from ._transport import Transport

# One event of the box's log.
BoxEvent: TypeAlias = GetV1EventsResponseItemsItem


class _Group:
    def __init__(self, transport: Transport) -> None:
        self._t = transport


class Approvals(_Group):
    """Requests a supervised agent's `ask` holds, and the operator's decisions on them."""

    @route("GET /v1/approvals")
    def list(self) -> GetV1ApprovalsResponse:
        return cast(GetV1ApprovalsResponse, self._t.send("GET", "/v1/approvals").json())

    @route("GET /v1/approvals/{id}")
    def get(self, id: str) -> GetV1ApprovalsIdResponse:
        return cast(GetV1ApprovalsIdResponse, self._t.send("GET", "/v1/approvals/{id}", params={"id": id}).json())

    @route("POST /v1/approvals/{id}")
    def decide(self, id: str, body: PostV1ApprovalsIdBody) -> PostV1ApprovalsIdResponse:
        """Approve or deny; `signed` carries an operator's signed statement (kind 4751), else the decision is recorded unsigned."""
        return cast(PostV1ApprovalsIdResponse, self._t.send("POST", "/v1/approvals/{id}", params={"id": id}, json_body=body).json())

    @route("GET /v1/approvals/stream")
    def stream(self, timeout: float | None = None) -> Iterator[SseMessage]:
        """The queue live: a `snapshot`, then a `requested` or `decided` message per change, until the loop is left."""
        return self._t.stream("/v1/approvals/stream", timeout=timeout)


class InputRequests(_Group):
    """
    Agents waiting for a person: the operator lists and answers (a prompt's answer is typed into the
    agent's terminal); an agent, with its own token, asks, awaits and takes back its own.
    """

    @route("GET /v1/input-requests")
    def list(self) -> GetV1InputRequestsResponse:
        """The open requests, oldest first."""
        return cast(GetV1InputRequestsResponse, self._t.send("GET", "/v1/input-requests").json())

    @route("GET /v1/input-requests/{id}")
    def get(self, id: str) -> GetV1InputRequestsIdResponse:
        return cast(GetV1InputRequestsIdResponse, self._t.send("GET", "/v1/input-requests/{id}", params={"id": id}).json())

    @route("POST /v1/input-requests/{id}")
    def answer(self, id: str, text: str, enter: bool = True) -> PostV1InputRequestsIdResponse:
        """Answer: `text`, then Enter unless `enter` is False."""
        body = {"text": text, "enter": enter}
        return cast(PostV1InputRequestsIdResponse, self._t.send("POST", "/v1/input-requests/{id}", params={"id": id}, json_body=body).json())

    @route("POST /v1/agents/{id}/input-requests")
    def raise_request(self, agent_id: str, prompt: str) -> PostV1AgentsIdInputRequestsResponse:
        """An agent asks for input (`agent_id` is the caller itself when it uses its token)."""
        answer = self._t.send("POST", "/v1/agents/{id}/input-requests", params={"id": agent_id}, json_body={"prompt": prompt})
        return cast(PostV1AgentsIdInputRequestsResponse, answer.json())

    @route("GET /v1/agents/{id}/input-requests/{requestId}")
    def own(self, agent_id: str, request_id: str, wait: int = 0) -> GetV1AgentsIdInputRequestsRequestIdResponse:
        """An agent's own request, with the answer's text once answered; `wait` seconds (at most 60) while it is open."""
        params = {"id": agent_id, "requestId": request_id}
        answer = self._t.send("GET", "/v1/agents/{id}/input-requests/{requestId}", params=params, query={"wait": wait})
        return cast(GetV1AgentsIdInputRequestsRequestIdResponse, answer.json())

    @route("DELETE /v1/agents/{id}/input-requests/{requestId}")
    def withdraw(self, agent_id: str, request_id: str) -> DeleteV1AgentsIdInputRequestsRequestIdResponse:
        """An agent takes back its own open request."""
        params = {"id": agent_id, "requestId": request_id}
        answer = self._t.send("DELETE", "/v1/agents/{id}/input-requests/{requestId}", params=params)
        return cast(DeleteV1AgentsIdInputRequestsRequestIdResponse, answer.json())


class Snapshots(_Group):
    """Workspace snapshots: made of an agent's working directory, listed, read, compared, browsed file by file, deleted, restored in place (a fork is agents.spawn with fromSnapshot)."""

    @route("POST /v1/agents/{id}/snapshots")
    def create(self, id: str, body: PostV1AgentsIdSnapshotsBody | None = None) -> PostV1AgentsIdSnapshotsResponse:
        return cast(PostV1AgentsIdSnapshotsResponse, self._t.send("POST", "/v1/agents/{id}/snapshots", params={"id": id}, json_body=body or {}).json())

    @route("GET /v1/snapshots")
    def list(self, query: GetV1SnapshotsQuery | None = None) -> GetV1SnapshotsResponse:
        return cast(GetV1SnapshotsResponse, self._t.send("GET", "/v1/snapshots", query=query).json())

    @route("GET /v1/snapshots/{sid}")
    def get(self, sid: str) -> GetV1SnapshotsSidResponse:
        return cast(GetV1SnapshotsSidResponse, self._t.send("GET", "/v1/snapshots/{sid}", params={"sid": sid}).json())

    @route("DELETE /v1/snapshots/{sid}")
    def delete(self, sid: str) -> DeleteV1SnapshotsSidResponse:
        return cast(DeleteV1SnapshotsSidResponse, self._t.send("DELETE", "/v1/snapshots/{sid}", params={"sid": sid}).json())

    @route("POST /v1/agents/{id}/restore")
    def restore(self, id: str, snapshot: str) -> PostV1AgentsIdRestoreResponse:
        """Replace an ended agent's working directory with the snapshot."""
        return cast(PostV1AgentsIdRestoreResponse, self._t.send("POST", "/v1/agents/{id}/restore", params={"id": id}, json_body={"snapshot": snapshot}).json())

    @route("PUT /v1/snapshots/{sid}/warm")
    def warm(self, sid: str, forks: int) -> PutV1SnapshotsSidWarmResponse:
        """Keep `forks` copies of the snapshot built ahead (0 removes them): a fork of it then takes one by a rename, without copying."""
        return cast(PutV1SnapshotsSidWarmResponse, self._t.send("PUT", "/v1/snapshots/{sid}/warm", params={"sid": sid}, json_body={"forks": forks}).json())

    @route("GET /v1/snapshots/{sid}/diff")
    def diff(self, sid: str, from_snapshot: str, limit: int | None = None, cursor: str | None = None) -> GetV1SnapshotsSidDiffResponse:
        """What changed from snapshot `from_snapshot` to `sid`: paths added, deleted, modified (from their records; nothing read or built).
        A long diff comes a page at a time: pass the answer's `nextCursor` as `cursor` for the next."""
        query = {"from": from_snapshot, "limit": None if limit is None else str(limit), "cursor": cursor}
        return cast(GetV1SnapshotsSidDiffResponse, self._t.send("GET", "/v1/snapshots/{sid}/diff", params={"sid": sid}, query=query).json())

    @route("GET /v1/snapshots/{sid}/files", "GET /v1/snapshots/{sid}/files/{*}")
    def list_files(self, sid: str, path: str = "") -> GetV1SnapshotsSidFilesRestResponse:
        """A directory of the snapshot ("" its top), listed from the store as files.list lists a workspace's."""
        template, params = _snapshot_files_route(sid, path)
        return cast(GetV1SnapshotsSidFilesRestResponse, self._t.send("GET", template, params=params, query={"list": "true"}).json())

    @route("GET /v1/snapshots/{sid}/files/{*}")
    def read_file(self, sid: str, path: str, if_none_match: str | None = None) -> WorkspaceFile:
        """A file of the snapshot, read from the store: its bytes, ETag and mode."""
        template, params = _snapshot_files_route(sid, path)
        answer = self._t.send("GET", template, params=params, headers={"if-none-match": if_none_match}, accept=(304,))
        return WorkspaceFile(answer.status, answer.headers.get("etag"), answer.headers.get("x-file-mode"), answer.body)


    @route("GET /v1/snapshots/{sid}/files", "GET /v1/snapshots/{sid}/files/{*}")
    def tar(self, sid: str, path: str = "") -> bytes:
        """A directory of the snapshot ("" its top) as a tar archive's bytes, packed from the store."""
        template, params = _snapshot_files_route(sid, path)
        return self._t.send("GET", template, params=params, query={"format": "tar"}).body

def _snapshot_files_route(sid: str, path: str) -> tuple[str, dict[str, str]]:
    """The route of a path in a snapshot: its top, or a path below it."""
    below = path.lstrip("/")
    return ("/v1/snapshots/{sid}/files", {"sid": sid}) if below == "" else ("/v1/snapshots/{sid}/files/{*}", {"sid": sid, "*": below})


class Beads(_Group):
    """Task receipts: create, list, the ready queue, claim, close."""

    @route("POST /v1/beads")
    def create(self, body: PostV1BeadsBody) -> PostV1BeadsResponse:
        return cast(PostV1BeadsResponse, self._t.send("POST", "/v1/beads", json_body=body).json())

    @route("GET /v1/beads")
    def list(self, query: GetV1BeadsQuery | None = None) -> GetV1BeadsResponse:
        return cast(GetV1BeadsResponse, self._t.send("GET", "/v1/beads", query=query).json())

    @route("GET /v1/beads/ready")
    def ready(self, query: GetV1BeadsReadyQuery | None = None) -> GetV1BeadsReadyResponse:
        return cast(GetV1BeadsReadyResponse, self._t.send("GET", "/v1/beads/ready", query=query).json())

    @route("GET /v1/beads/{id}")
    def get(self, id: str) -> GetV1BeadsIdResponse:
        return cast(GetV1BeadsIdResponse, self._t.send("GET", "/v1/beads/{id}", params={"id": id}).json())

    @route("POST /v1/beads/{id}/claim")
    def claim(self, id: str, claimant: str) -> PostV1BeadsIdClaimResponse:
        """Claim an open, ready bead: one of concurrent claimants wins, the others get ABX_ERR_CONFLICT."""
        return cast(PostV1BeadsIdClaimResponse, self._t.send("POST", "/v1/beads/{id}/claim", params={"id": id}, json_body={"claimant": claimant}).json())

    @route("POST /v1/beads/{id}/close")
    def close(self, id: str, body: PostV1BeadsIdCloseBody) -> PostV1BeadsIdCloseResponse:
        return cast(PostV1BeadsIdCloseResponse, self._t.send("POST", "/v1/beads/{id}/close", params={"id": id}, json_body=body).json())


class Memory(_Group):
    """Vector memory, by namespace."""

    @route("POST /v1/memory/{namespace}")
    def put(self, namespace: str, body: PostV1MemoryNamespaceBody) -> PostV1MemoryNamespaceResponse:
        answer = self._t.send("POST", "/v1/memory/{namespace}", params={"namespace": namespace}, json_body=body)
        return cast(PostV1MemoryNamespaceResponse, answer.json())

    @route("GET /v1/memory/{namespace}")
    def list(self, namespace: str, query: GetV1MemoryNamespaceQuery | None = None) -> GetV1MemoryNamespaceResponse:
        answer = self._t.send("GET", "/v1/memory/{namespace}", params={"namespace": namespace}, query=query)
        return cast(GetV1MemoryNamespaceResponse, answer.json())

    @route("POST /v1/memory/{namespace}/search")
    def search(self, namespace: str, body: PostV1MemoryNamespaceSearchBody) -> PostV1MemoryNamespaceSearchResponse:
        answer = self._t.send("POST", "/v1/memory/{namespace}/search", params={"namespace": namespace}, json_body=body)
        return cast(PostV1MemoryNamespaceSearchResponse, answer.json())

    @route("GET /v1/memory/{namespace}/{id}")
    def get(self, namespace: str, id: str) -> GetV1MemoryNamespaceIdResponse:
        answer = self._t.send("GET", "/v1/memory/{namespace}/{id}", params={"namespace": namespace, "id": id})
        return cast(GetV1MemoryNamespaceIdResponse, answer.json())

    @route("DELETE /v1/memory/{namespace}/{id}")
    def delete(self, namespace: str, id: str) -> DeleteV1MemoryNamespaceIdResponse:
        answer = self._t.send("DELETE", "/v1/memory/{namespace}/{id}", params={"namespace": namespace, "id": id})
        return cast(DeleteV1MemoryNamespaceIdResponse, answer.json())


class Events(_Group):
    """The box's event log: append, query, follow live, and its transparency-log checkpoint and proofs."""

    @route("POST /v1/events")
    def append(self, body: PostV1EventsBody) -> PostV1EventsResponse:
        return cast(PostV1EventsResponse, self._t.send("POST", "/v1/events", json_body=body).json())

    @route("GET /v1/events")
    def query(self, query: GetV1EventsQuery | None = None) -> GetV1EventsResponse:
        """Events oldest first by kind and time range; page with the answer's nextCursor."""
        return cast(GetV1EventsResponse, self._t.send("GET", "/v1/events", query=query).json())

    @route("GET /v1/events/stream")
    def stream(self, query: GetV1EventsStreamQuery | None = None, last_event_id: str | None = None, timeout: float | None = None) -> Iterator[BoxEvent]:
        """
        Live events (after replaying from `since`, or after `last_event_id` to resume) until the
        loop is left; `timeout` bounds the wait for each next event (ABX_CLIENT_TIMEOUT).
        """
        for message in self._t.stream("/v1/events/stream", query=query, headers={"last-event-id": last_event_id}, timeout=timeout):
            yield cast(BoxEvent, json.loads(message.data))

    @route("GET /v1/events/checkpoint")
    def checkpoint(self) -> str:
        """The log's latest signed checkpoint: a C2SP signed note, as text."""
        return self._t.send("GET", "/v1/events/checkpoint").body.decode()

    @route("POST /v1/events/checkpoint")
    def sign_checkpoint(self) -> str:
        """Sign a checkpoint of the log as it is now (none when the latest covers every entry); the latest signed note, as text."""
        return self._t.send("POST", "/v1/events/checkpoint").body.decode()

    @route("GET /v1/events/proof/inclusion")
    def inclusion_proof(self, query: GetV1EventsProofInclusionQuery) -> GetV1EventsProofInclusionResponse:
        return cast(GetV1EventsProofInclusionResponse, self._t.send("GET", "/v1/events/proof/inclusion", query=query).json())

    @route("GET /v1/events/proof/consistency")
    def consistency_proof(self, query: GetV1EventsProofConsistencyQuery) -> GetV1EventsProofConsistencyResponse:
        return cast(GetV1EventsProofConsistencyResponse, self._t.send("GET", "/v1/events/proof/consistency", query=query).json())


class Egress(_Group):
    """The egress allowlist the box's proxy enforces."""

    @route("GET /v1/sandbox/egress")
    def get(self) -> GetV1SandboxEgressResponse:
        return cast(GetV1SandboxEgressResponse, self._t.send("GET", "/v1/sandbox/egress").json())

    @route("PUT /v1/sandbox/egress")
    def put(self, body: PutV1SandboxEgressBody) -> PutV1SandboxEgressResponse:
        return cast(PutV1SandboxEgressResponse, self._t.send("PUT", "/v1/sandbox/egress", json_body=body).json())


@dataclass(frozen=True)
class PodResource:
    """A pod resource as read: status (304 when if_none_match held), content type, ETag and text."""

    status: int
    content_type: str | None
    etag: str | None
    text: str


class Pods(_Group):
    """Pod storage: resources of any content type, conditional by ETag."""

    @route("GET /v1/pods/{*}")
    def get(self, path: str, if_none_match: str | None = None) -> PodResource:
        answer = self._t.send("GET", "/v1/pods/{*}", params={"*": path}, headers={"if-none-match": if_none_match}, accept=(304,))
        return PodResource(answer.status, answer.headers.get("content-type"), answer.headers.get("etag"), answer.body.decode("utf-8", "replace"))

    @route("PUT /v1/pods/{*}")
    def put(self, path: str, text: str, content_type: str, if_match: str | None = None, if_none_match: str | None = None) -> PutV1PodsRestResponse:
        headers = {"if-match": if_match, "if-none-match": if_none_match}
        answer = self._t.send("PUT", "/v1/pods/{*}", params={"*": path}, headers=headers, raw=text.encode(), content_type=content_type)
        return cast(PutV1PodsRestResponse, answer.json())

    @route("DELETE /v1/pods/{*}")
    def delete(self, path: str, if_match: str | None = None) -> None:
        self._t.send("DELETE", "/v1/pods/{*}", params={"*": path}, headers={"if-match": if_match})


class Dashboard(_Group):
    """The dashboard's live feed, for tools that watch the box as the dashboard does."""

    @route("GET /v1/dashboard/stream")
    def stream(self, topics: str | None = None, timeout: float | None = None) -> Iterator[SseMessage]:
        """An `event: <topic>` message per topic (overview, agents, beads, mesh, approvals, inputs; comma-separated) on connect and on each change."""
        return self._t.stream("/v1/dashboard/stream", query={"topics": topics}, timeout=timeout)
