"""`Agentbox`: the typed, synchronous client of one box, a method per route grouped by family."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any, cast

from ._agents import Agents, Files
from ._auth import AgentToken, ApiKey, Credential
from ._errors import AgentboxError
from ._groups import Approvals, Beads, Dashboard, Egress, Events, InputRequests, Memory, Pods, Snapshots
from ._route import route
from ._routes import ROUTES, GetHealthResponse, GetLivezResponse, GetReadyResponse, GetV1AuthKeyProofResponse, GetV1MetaResponse, RouteKey
from ._sse import SseMessage
from ._transport import Transport


class Agentbox:
    """
    The client of one box. Every method raises AgentboxError on a refusal (the API's code) or on a
    failure to reach the box (an ABX_CLIENT_* code, status 0).
    """

    def __init__(
        self,
        url: str,
        auth: Credential | None = None,
        *,
        retries: int = 2,
        max_retry_after: float = 10.0,
        timeout: float | None = 30.0,
    ) -> None:
        """
        `url` is the box's API (a path prefix is kept); `auth` ApiKey, AgentToken or Nip98 (absent,
        only the probes answer). A GET is tried `retries` more times after a connection error or a
        503 with Retry-After (waited out up to `max_retry_after` seconds); other methods never are.
        `timeout` bounds each connect and each read of an answer, in seconds.
        """
        self._t = Transport(url, auth, retries, max_retry_after, timeout)
        self.agents = Agents(self._t)
        self.files = Files(self._t)
        self.approvals = Approvals(self._t)
        self.input_requests = InputRequests(self._t)
        self.beads = Beads(self._t)
        self.memory = Memory(self._t)
        self.events = Events(self._t)
        self.egress = Egress(self._t)
        self.pods = Pods(self._t)
        self.snapshots = Snapshots(self._t)
        self.dashboard = Dashboard(self._t)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **options: Any) -> Agentbox:
        """
        The box from the environment: AGENTBOX_URL with AGENTBOX_KEY (an operator), or, inside an
        agent, AGENTBOX_API_URL with AGENTBOX_TOKEN (that agent's scope).
        """
        env = os.environ if env is None else env
        url = env.get("AGENTBOX_URL") or env.get("AGENTBOX_API_URL")
        if not url:
            raise AgentboxError("ABX_CLIENT_INPUT", 0, "neither AGENTBOX_URL nor AGENTBOX_API_URL is set")
        key, token = env.get("AGENTBOX_KEY"), env.get("AGENTBOX_TOKEN")
        auth: Credential | None = ApiKey(key) if key else AgentToken(token) if token else None
        return cls(url, auth, **options)

    def call(
        self,
        key: RouteKey,
        *,
        params: Mapping[str, str] | None = None,
        query: Mapping[str, object] | None = None,
        headers: Mapping[str, str | None] | None = None,
        body: object = None,
    ) -> Any:
        """Any route by its key ("GET /v1/agents/{id}"), with the route's own inputs; its JSON answer."""
        route_ = ROUTES.get(key)
        if route_ is None:
            raise AgentboxError("ABX_CLIENT_INPUT", 0, f"no route {key!r} in this client's table")
        return self._t.send(route_.method, route_.path, params=params, query=query, headers=headers, json_body=body).json()

    def stream(
        self, key: RouteKey, *, params: Mapping[str, str] | None = None, query: Mapping[str, object] | None = None, timeout: float | None = None
    ) -> Iterator[SseMessage]:
        """Any event-stream route by its key: its Server-Sent Events as they come."""
        route_ = ROUTES.get(key)
        if route_ is None or route_.method != "GET":
            raise AgentboxError("ABX_CLIENT_INPUT", 0, f"{key!r} is not a GET route of this client's table")
        return self._t.stream(route_.path, params=params, query=query, timeout=timeout)

    @route("GET /livez")
    def livez(self) -> GetLivezResponse:
        """Liveness: answers while the process runs (no credential needed)."""
        return cast(GetLivezResponse, self._t.send("GET", "/livez").json())

    @route("GET /ready")
    def ready(self) -> GetReadyResponse:
        """Readiness, also when not ready (a 503 is an answer here, not an error)."""
        return cast(GetReadyResponse, self._t.send("GET", "/ready", accept=(503,)).json())

    @route("GET /health")
    def health(self) -> GetHealthResponse:
        """Slots, mounts, seal, programmes, federation, sandbox: the box's health for people."""
        return cast(GetHealthResponse, self._t.send("GET", "/health").json())

    @route("GET /v1/meta")
    def meta(self) -> GetV1MetaResponse:
        """The box's identity: version, Nostr identity, image and manifest hashes, adapters."""
        return cast(GetV1MetaResponse, self._t.send("GET", "/v1/meta").json())

    @route("GET /v1/auth/key-proof")
    def key_proof(self, challenge: str) -> GetV1AuthKeyProofResponse:
        """The box's answer to a challenge (64 hex digits): HMAC-SHA256 of its bytes under
        HMAC-SHA256(api_key, "agentbox key proof v1"). Sent without the credential (a redirect is an
        error); compare it with your own to learn the box holds your key before you send it there."""
        return cast(GetV1AuthKeyProofResponse, self._t.send("GET", "/v1/auth/key-proof", query={"challenge": challenge}).json())
