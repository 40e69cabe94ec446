"""Route table, error codes and TypedDicts of the Agentbox API.

Generated from the API's OpenAPI document and management-api/src/errors.ts by `npm run generate`
— do not edit; `generate --check` fails when this file is stale.
"""

from typing import Any, Final, Literal, NamedTuple, Required, TypeAlias, TypedDict

# Every error code the API answers with, as {"error": code, "message": …} (docs/errors.md).
ErrorCode: TypeAlias = Literal[
    "ABX_ERR_AUTH_REQUIRED",
    "ABX_ERR_AUTH_INVALID",
    "ABX_ERR_AGENT_SCOPE",
    "ABX_ERR_AGENT_LISTENER",
    "ABX_ERR_CSRF",
    "ABX_ERR_VALIDATION",
    "ABX_ERR_MALFORMED_BODY",
    "ABX_ERR_BAD_REQUEST",
    "ABX_ERR_BODY_TOO_LARGE",
    "ABX_ERR_UNSUPPORTED_MEDIA_TYPE",
    "ABX_ERR_NOT_FOUND",
    "ABX_ERR_CONFLICT",
    "ABX_ERR_NO_TERMINAL",
    "ABX_ERR_PRECONDITION_FAILED",
    "ABX_ERR_RATE_LIMITED",
    "ABX_ERR_ADAPTER_OFF",
    "ABX_ERR_ADAPTER_DEGRADED",
    "ABX_ERR_ADAPTER_UNAVAILABLE",
    "ABX_ERR_ADAPTER_TIMEOUT",
    "ABX_ERR_MESH_SESSION_GONE",
    "ABX_ERR_MESH_REGISTRY_UNAVAILABLE",
    "ABX_ERR_SANDBOX_UNAVAILABLE",
    "ABX_ERR_PROVIDER_UNREACHABLE",
    "ABX_ERR_PROVIDER_TIMEOUT",
    "ABX_ERR_PROVIDER_KEY_MISSING",
    "ABX_ERR_PROVIDER_PATH",
    "ABX_ERR_DISK_LOW",
    "ABX_ERR_EGRESS_UNAVAILABLE",
    "ABX_ERR_AUDIT_UNAVAILABLE",
    "ABX_ERR_POLICY_DENIED",
    "ABX_ERR_APPROVAL_NOT_FOUND",
    "ABX_ERR_APPROVAL_DECIDED",
    "ABX_ERR_APPROVAL_CHANGED",
    "ABX_ERR_APPROVAL_SIGNATURE",
    "ABX_ERR_INPUT_REQUEST_NOT_FOUND",
    "ABX_ERR_INPUT_REQUEST_CLOSED",
    "ABX_ERR_INPUT_REQUESTS_FULL",
    "ABX_ERR_FILE_PATH",
    "ABX_ERR_FILE_TYPE",
    "ABX_ERR_FILE_TOO_LARGE",
    "ABX_ERR_TAR_REFUSED",
    "ABX_ERR_SHUTTING_DOWN",
    "ABX_ERR_INTERNAL",
]

# Each code with its HTTP status and what it means.
ERROR_CODES: Final[dict[str, tuple[int, str]]] = {
    "ABX_ERR_AUTH_REQUIRED": (401, "The route needs the API key as `Authorization: Bearer <key>` and none was sent."),
    "ABX_ERR_AUTH_INVALID": (401, "An Authorization header was sent but it is not the box API key, or its NIP-98 signed event was refused."),
    "ABX_ERR_AGENT_SCOPE": (403, "The request carries an agent token and the route or resource is outside that agent's scope (the message names the scope)."),
    "ABX_ERR_AGENT_LISTENER": (403, "The request came through the agents' listener (AGENTBOX_API_URL), which serves only agent-token routes, the provider broker, /livez and /ready; the dashboard, sign-in and the API key work on the operator's port only."),
    "ABX_ERR_CSRF": (403, "A dashboard session (cookie) was used for a mutation without the box's own Origin or without the session's CSRF token in x-csrf-token."),
    "ABX_ERR_VALIDATION": (400, "The request body, query or path parameters do not match the route schema."),
    "ABX_ERR_MALFORMED_BODY": (400, "The request body is not valid JSON (or is empty where JSON is required)."),
    "ABX_ERR_BAD_REQUEST": (400, "The request is malformed in another way (for example a bad header)."),
    "ABX_ERR_BODY_TOO_LARGE": (413, "The request body exceeds the route body limit."),
    "ABX_ERR_UNSUPPORTED_MEDIA_TYPE": (415, "The request Content-Type is not accepted by the route (send application/json)."),
    "ABX_ERR_NOT_FOUND": (404, "No route or no resource with that name."),
    "ABX_ERR_CONFLICT": (409, "The request conflicts with the current state (for example a bead already claimed by someone else)."),
    "ABX_ERR_NO_TERMINAL": (409, "The agent has no terminal to attach to or type into: it was started without `tty`, or it has ended and its terminal is closed."),
    "ABX_ERR_PRECONDITION_FAILED": (412, "A conditional request (If-Match / If-None-Match) did not hold."),
    "ABX_ERR_RATE_LIMITED": (429, "Too many mutating requests, or more tar downloads at once than the box allows (4 of one agent's workspace, 16 in all); retry after the number of seconds in the Retry-After header."),
    "ABX_ERR_ADAPTER_OFF": (503, "The adapter slot behind this route is configured `off` in the manifest."),
    "ABX_ERR_ADAPTER_DEGRADED": (503, "The adapter slot behind this route is degraded (its backend is unreachable); the API reconnects in the background."),
    "ABX_ERR_ADAPTER_UNAVAILABLE": (503, "The adapter backend failed during this request; the slot is marked degraded."),
    "ABX_ERR_ADAPTER_TIMEOUT": (504, "The adapter backend did not answer in time."),
    "ABX_ERR_MESH_SESSION_GONE": (410, "Mesh host: the session is unknown, ended or evicted (three missed heartbeats); the member registers again (POST /v1/register)."),
    "ABX_ERR_MESH_REGISTRY_UNAVAILABLE": (503, "Mesh host: the member registry (SQLite file or Postgres database) cannot answer; the member retries with backoff."),
    "ABX_ERR_SANDBOX_UNAVAILABLE": (503, "Agents run confined (sandbox.enabled) but this host cannot enforce the sandbox; the message names what is missing and no agent was started."),
    "ABX_ERR_PROVIDER_UNREACHABLE": (502, "The provider broker could not reach the provider at its base_url (connection refused, reset or failed)."),
    "ABX_ERR_PROVIDER_TIMEOUT": (504, "The provider did not send its response headers within the broker timeout."),
    "ABX_ERR_PROVIDER_KEY_MISSING": (503, "The provider's key is not available to the broker (its env_var is unset or empty in the API's environment)."),
    "ABX_ERR_PROVIDER_PATH": (400, "The provider broker refused the path: it leaves the provider's base_url path, or could be read so by some parser (a dot segment, an encoded dot, slash, backslash or percent, a backslash, an empty segment)."),
    "ABX_ERR_DISK_LOW": (507, "The state volume or the workspace has less free space than resources.min_free_disk: no new agent is started, nothing written to a workspace and no snapshot taken until space returns (the message names the path, free bytes and threshold); or a write to a workspace did not fit: its declared length is more than the workspace volume may still take above that threshold, or the disk ran out of space while it was written (nothing of it kept)."),
    "ABX_ERR_EGRESS_UNAVAILABLE": (503, "The egress proxy cannot be reached over its control socket, or does not run (sandbox.enabled = false, or the API runs outside a box)."),
    "ABX_ERR_AUDIT_UNAVAILABLE": (503, "The events slot is in adapters.critical and cannot record this action now, so the action was refused (or, for a spawn whose record failed, the agent was ended)."),
    "ABX_ERR_POLICY_DENIED": (403, "The box's [policy] refused the action (a spawn, a provider call, a change of the egress allowlist): the message names the deciding rule (its index and id) or the default, why, and the policy version; an ask is refused at once for an autonomous agent; for a supervised one it is held as an approval request and refused when denied, timed out, or no approver is reachable."),
    "ABX_ERR_APPROVAL_NOT_FOUND": (404, "No approval request has that id (it never existed, or was decided long enough ago to be forgotten)."),
    "ABX_ERR_APPROVAL_DECIDED": (409, "The approval request was decided already (approved, denied or timed out): a decision counts once."),
    "ABX_ERR_APPROVAL_CHANGED": (409, "The signed decision states another digest or policy version than the pending request's: it was made for a changed request and is refused; the request stays pending."),
    "ABX_ERR_APPROVAL_SIGNATURE": (403, "The signed decision is refused: not a valid Nostr event of kind 4751, a signer not in mesh.operator_pubkeys, a statement that does not match the call (request, decision, scope, expiry), not fresh, or used before (a replay); the request stays pending."),
    "ABX_ERR_INPUT_REQUEST_NOT_FOUND": (404, "No input request has that id (it never existed, was closed long enough ago to be forgotten, or, for an agent's token, is another agent's)."),
    "ABX_ERR_INPUT_REQUEST_CLOSED": (409, "The input request is no longer open: answered already, withdrawn (the agent wrote on past its prompt, someone typed into its terminal, or the agent took it back) or ended with its agent; the message says which."),
    "ABX_ERR_INPUT_REQUESTS_FULL": (429, "An agent may hold 4 open input requests and the box 256 in all: answer or withdraw some before asking again."),
    "ABX_ERR_FILE_PATH": (400, "A workspace file path was refused: empty, absolute, with a `..` or `.` segment, an empty segment, a NUL or control character, too long, or passing through a symbolic link (links inside a workspace are listed, never followed)."),
    "ABX_ERR_FILE_TYPE": (409, "The workspace entry is not of the kind the request needs: a directory where a file is read or written (or the reverse), a symbolic link, FIFO, socket or device (never read or written through), a non-empty directory deleted without recursive, or a file with several hard links the agent does not own."),
    "ABX_ERR_FILE_TOO_LARGE": (413, "A workspace upload is over a limit: a file over the per-file size, a tar over its entry count or total size, or what the agent's disk budget (sandbox.limits.disk) has left; or a workspace too large to snapshot (its capture needed more memory than a capture thread has) or nested too deep to snapshot or download (over 128 directory levels), or whose sparse files hold more holes than a snapshot reads through (the agent's disk budget), or holding more entries than the agent's entry budget (sandbox.limits.entries; a fork of such a snapshot too). The message names the limit."),
    "ABX_ERR_TAR_REFUSED": (400, "A tar upload holds an entry that is refused (a name absolute or with `..`, a hard link, a device, FIFO or other special file, a symbolic link leading outside the workspace, a file written through a symbolic link) or is not a well-formed tar; nothing was written."),
    "ABX_ERR_SHUTTING_DOWN": (503, "The API is closing (SIGTERM received) and accepts no new requests."),
    "ABX_ERR_INTERNAL": (500, "An unexpected error; details are in the API log under the request id."),
}

# A route, as "METHOD /path/{param}" ({*} is the rest of the path, slashes included).
RouteKey: TypeAlias = Literal[
    "GET /health",
    "GET /livez",
    "GET /ready",
    "GET /v1/agents",
    "POST /v1/agents",
    "GET /v1/agents/{id}",
    "DELETE /v1/agents/{id}",
    "POST /v1/agents/{id}/exec",
    "GET /v1/agents/{id}/files",
    "PUT /v1/agents/{id}/files",
    "POST /v1/agents/{id}/files",
    "DELETE /v1/agents/{id}/files",
    "GET /v1/agents/{id}/files/{*}",
    "PUT /v1/agents/{id}/files/{*}",
    "POST /v1/agents/{id}/files/{*}",
    "DELETE /v1/agents/{id}/files/{*}",
    "POST /v1/agents/{id}/input",
    "POST /v1/agents/{id}/input-requests",
    "GET /v1/agents/{id}/input-requests/{requestId}",
    "DELETE /v1/agents/{id}/input-requests/{requestId}",
    "GET /v1/agents/{id}/output",
    "POST /v1/agents/{id}/restore",
    "POST /v1/agents/{id}/snapshots",
    "GET /v1/approvals",
    "GET /v1/approvals/stream",
    "GET /v1/approvals/{id}",
    "POST /v1/approvals/{id}",
    "GET /v1/auth/key-proof",
    "GET /v1/beads",
    "POST /v1/beads",
    "GET /v1/beads/ready",
    "GET /v1/beads/{id}",
    "POST /v1/beads/{id}/claim",
    "POST /v1/beads/{id}/close",
    "GET /v1/dashboard/stream",
    "GET /v1/events",
    "POST /v1/events",
    "GET /v1/events/checkpoint",
    "POST /v1/events/checkpoint",
    "GET /v1/events/proof/consistency",
    "GET /v1/events/proof/inclusion",
    "GET /v1/events/stream",
    "GET /v1/input-requests",
    "GET /v1/input-requests/{id}",
    "POST /v1/input-requests/{id}",
    "GET /v1/memory/{namespace}",
    "POST /v1/memory/{namespace}",
    "POST /v1/memory/{namespace}/search",
    "GET /v1/memory/{namespace}/{id}",
    "DELETE /v1/memory/{namespace}/{id}",
    "GET /v1/meta",
    "GET /v1/pods/{*}",
    "PUT /v1/pods/{*}",
    "DELETE /v1/pods/{*}",
    "GET /v1/sandbox/egress",
    "PUT /v1/sandbox/egress",
    "GET /v1/snapshots",
    "GET /v1/snapshots/{sid}",
    "DELETE /v1/snapshots/{sid}",
    "GET /v1/snapshots/{sid}/diff",
    "GET /v1/snapshots/{sid}/files",
    "GET /v1/snapshots/{sid}/files/{*}",
    "PUT /v1/snapshots/{sid}/warm",
]


class Route(NamedTuple):
    """One route: its method, path template, the prefix of its type names here, and its summary."""

    method: str
    path: str
    types: str
    summary: str


# Every route of the API, in the order of the document.
ROUTES: Final[dict[str, Route]] = {
    "GET /health": Route("GET", "/health", "GetHealth", "Aggregate health for people: slots, mounts, seal, supervised programmes, federation (mesh registration or members), relays, uptime"),
    "GET /livez": Route("GET", "/livez", "GetLivez", "Liveness: the process answers (no external checks), also while it shuts down"),
    "GET /ready": Route("GET", "/ready", "GetReady", "Readiness: 200 when the seal exists, the mounts are writable, every critical adapter slot is healthy and (while agent events are published) a relay is reachable; 503 from the moment the API starts shutting down"),
    "GET /v1/agents": Route("GET", "/v1/agents", "GetV1Agents", "Every agent the orchestrator knows, oldest first"),
    "POST /v1/agents": Route("POST", "/v1/agents", "PostV1Agents", "Start an agent process in the workspace"),
    "GET /v1/agents/{id}": Route("GET", "/v1/agents/{id}", "GetV1AgentsId", "One agent, with its recent egress refusals"),
    "DELETE /v1/agents/{id}": Route("DELETE", "/v1/agents/{id}", "DeleteV1AgentsId", "Terminate an agent: SIGTERM to its process group, SIGKILL after graceMs; answers with the final record"),
    "POST /v1/agents/{id}/exec": Route("POST", "/v1/agents/{id}/exec", "PostV1AgentsIdExec", "Run a command in a running agent's sandbox: the same launcher policy, uid, Landlock grants, working and temporary directories, egress credential and API token, under a budget of the agent's limits; ended with the agent. Answers with the command's own record (execOf names the agent): follow it through /output, /terminal and DELETE like any agent"),
    "GET /v1/agents/{id}/files": Route("GET", "/v1/agents/{id}/files", "GetV1AgentsIdFiles", "A file of the agent's working directory (its bytes, ETag, Last-Modified, X-File-Mode); a directory with ?list (JSON entries) or ?format=tar (a tar stream). Symbolic links are listed, never followed: GET of one is 409"),
    "PUT /v1/agents/{id}/files": Route("PUT", "/v1/agents/{id}/files", "PutV1AgentsIdFiles", "Create or replace a file with the request body, atomically (a temporary file renamed over the name); missing parent directories are made. X-File-Mode sets the permission bits (default 0644; setuid, setgid and sticky never set); If-None-Match: * creates only, If-Match replaces only that ETag"),
    "POST /v1/agents/{id}/files": Route("POST", "/v1/agents/{id}/files", "PostV1AgentsIdFiles", "Extract a tar (the request body) into a directory, made when missing (with X-File-Mode, its permission bits, the owner keeping every right): files, directories and links that stay inside the workspace; hard links, devices, FIFOs, absolute or .. names refused. All or nothing: extracted into a staging directory, moved in once the whole tar was accepted"),
    "DELETE /v1/agents/{id}/files": Route("DELETE", "/v1/agents/{id}/files", "DeleteV1AgentsIdFiles", "Delete a file, a symbolic link (never its target) or an empty directory; with ?recursive a directory and everything in it (links inside are removed, not followed)"),
    "GET /v1/agents/{id}/files/{*}": Route("GET", "/v1/agents/{id}/files/{*}", "GetV1AgentsIdFilesRest", "A file of the agent's working directory (its bytes, ETag, Last-Modified, X-File-Mode); a directory with ?list (JSON entries) or ?format=tar (a tar stream). Symbolic links are listed, never followed: GET of one is 409"),
    "PUT /v1/agents/{id}/files/{*}": Route("PUT", "/v1/agents/{id}/files/{*}", "PutV1AgentsIdFilesRest", "Create or replace a file with the request body, atomically (a temporary file renamed over the name); missing parent directories are made. X-File-Mode sets the permission bits (default 0644; setuid, setgid and sticky never set); If-None-Match: * creates only, If-Match replaces only that ETag"),
    "POST /v1/agents/{id}/files/{*}": Route("POST", "/v1/agents/{id}/files/{*}", "PostV1AgentsIdFilesRest", "Extract a tar (the request body) into a directory, made when missing (with X-File-Mode, its permission bits, the owner keeping every right): files, directories and links that stay inside the workspace; hard links, devices, FIFOs, absolute or .. names refused. All or nothing: extracted into a staging directory, moved in once the whole tar was accepted"),
    "DELETE /v1/agents/{id}/files/{*}": Route("DELETE", "/v1/agents/{id}/files/{*}", "DeleteV1AgentsIdFilesRest", "Delete a file, a symbolic link (never its target) or an empty directory; with ?recursive a directory and everything in it (links inside are removed, not followed)"),
    "POST /v1/agents/{id}/input": Route("POST", "/v1/agents/{id}/input", "PostV1AgentsIdInput", "Type text into a running tty agent's terminal (as keystrokes: end a line with \\r)"),
    "POST /v1/agents/{id}/input-requests": Route("POST", "/v1/agents/{id}/input-requests", "PostV1AgentsIdInputRequests", "An agent asks a person for input (with its own token; for itself only). 201 with the open request; await the answer with GET /v1/agents/{id}/input-requests/{requestId}?wait=SECONDS"),
    "GET /v1/agents/{id}/input-requests/{requestId}": Route("GET", "/v1/agents/{id}/input-requests/{requestId}", "GetV1AgentsIdInputRequestsRequestId", "An agent's own input request, with the answer's text once answered; `wait` (seconds, at most 60) holds the call while it is open"),
    "DELETE /v1/agents/{id}/input-requests/{requestId}": Route("DELETE", "/v1/agents/{id}/input-requests/{requestId}", "DeleteV1AgentsIdInputRequestsRequestId", "An agent takes back its own open input request (state withdrawn); 409 once closed"),
    "GET /v1/agents/{id}/output": Route("GET", "/v1/agents/{id}/output", "GetV1AgentsIdOutput", "Captured output after `after`: JSON {chunks}, or with follow=true (or Accept: text/event-stream) live Server-Sent Events until the agent ends; resume with Last-Event-ID"),
    "POST /v1/agents/{id}/restore": Route("POST", "/v1/agents/{id}/restore", "PostV1AgentsIdRestore", "Replace an ended agent's working directory with a snapshot (409 while it runs): built beside it, then swapped in. Modes (permission bits only), mtimes and links come back; setuid bits, devices and FIFOs never do; files belong to the agent"),
    "POST /v1/agents/{id}/snapshots": Route("POST", "/v1/agents/{id}/snapshots", "PostV1AgentsIdSnapshots", "Snapshot the agent's working directory, running or ended: content-addressed, deduplicated across snapshots and agents. Each file is as of its own read (read whole, again if it changed meanwhile): not one instant for the whole tree while the agent writes"),
    "GET /v1/approvals": Route("GET", "/v1/approvals", "GetV1Approvals", "Pending approval requests, oldest first"),
    "GET /v1/approvals/stream": Route("GET", "/v1/approvals/stream", "GetV1ApprovalsStream", "Approval requests as Server-Sent Events: a `snapshot` of the pending ones, then one `requested` or `decided` record per change"),
    "GET /v1/approvals/{id}": Route("GET", "/v1/approvals/{id}", "GetV1ApprovalsId", "One approval request, pending or recently decided"),
    "POST /v1/approvals/{id}": Route("POST", "/v1/approvals/{id}", "PostV1ApprovalsId", "Approve or deny a pending request, with a reason and a scope; signed by an operator key (signed) or unsigned with the API key or a dashboard session"),
    "GET /v1/auth/key-proof": Route("GET", "/v1/auth/key-proof", "GetV1AuthKeyProof", "Proof that this box holds an API key, without the key being sent: `proof` is HMAC-SHA256 of the challenge's bytes under HMAC-SHA256(apiKey, \"agentbox key proof v1\"), hex. `agentbox` commands ask for it and compare it with their own before they send the key under --root"),
    "GET /v1/beads": Route("GET", "/v1/beads", "GetV1Beads", "List beads in creation order, optionally by status and epic"),
    "POST /v1/beads": Route("POST", "/v1/beads", "PostV1Beads", "Create a bead (an epic or a task)"),
    "GET /v1/beads/ready": Route("GET", "/v1/beads/ready", "GetV1BeadsReady", "The ready queue: open beads whose dependencies all closed with success, oldest first"),
    "GET /v1/beads/{id}": Route("GET", "/v1/beads/{id}", "GetV1BeadsId", "One bead"),
    "POST /v1/beads/{id}/claim": Route("POST", "/v1/beads/{id}/claim", "PostV1BeadsIdClaim", "Claim an open, ready bead: exactly one of concurrent claimants wins (409 for the others); the winner may repeat the claim"),
    "POST /v1/beads/{id}/close": Route("POST", "/v1/beads/{id}/close", "PostV1BeadsIdClose", "Close a bead with an outcome (success, failure, cancelled); repeating the same close is harmless"),
    "GET /v1/dashboard/stream": Route("GET", "/v1/dashboard/stream", "GetV1DashboardStream", "The dashboard live stream (SSE): for each topic (overview, agents, beads, mesh, approvals, inputs; default all) an `event: <topic>` message with its JSON on connect and whenever it changes"),
    "GET /v1/events": Route("GET", "/v1/events", "GetV1Events", "Query events, oldest first, by kind and inclusive time range; page with nextCursor"),
    "POST /v1/events": Route("POST", "/v1/events", "PostV1Events", "Append one event to the event sink; 201 once it is durable"),
    "GET /v1/events/checkpoint": Route("GET", "/v1/events/checkpoint", "GetV1EventsCheckpoint", "The event log's latest signed checkpoint: a C2SP tlog-checkpoint signed note (origin, size, base64 RFC 6962 root), text/plain"),
    "POST /v1/events/checkpoint": Route("POST", "/v1/events/checkpoint", "PostV1EventsCheckpoint", "Sign a checkpoint of the event log as it is now (none when the latest already covers every entry) and answer the latest signed note, text/plain; agentbox backup asks for one so the backup holds every event so far"),
    "GET /v1/events/proof/consistency": Route("GET", "/v1/events/proof/consistency", "GetV1EventsProofConsistency", "RFC 6962 consistency proof between the trees of from and to entries (default to: the latest checkpoint)"),
    "GET /v1/events/proof/inclusion": Route("GET", "/v1/events/proof/inclusion", "GetV1EventsProofInclusion", "RFC 6962 inclusion proof of entry index (seq − 1) in the tree of size entries (default: the latest checkpoint)"),
    "GET /v1/events/stream": Route("GET", "/v1/events/stream", "GetV1EventsStream", "Live events as Server-Sent Events; resume with Last-Event-ID or start from a time with since"),
    "GET /v1/input-requests": Route("GET", "/v1/input-requests", "GetV1InputRequests", "Agents waiting for a person: the open input requests, oldest first"),
    "GET /v1/input-requests/{id}": Route("GET", "/v1/input-requests/{id}", "GetV1InputRequestsId", "One input request, open or recently closed"),
    "POST /v1/input-requests/{id}": Route("POST", "/v1/input-requests/{id}", "PostV1InputRequestsId", "Answer an open input request: a prompt's text (and Enter) is typed into the agent's terminal; an explicit request's text is handed to the agent. 409 once it is answered, withdrawn or ended"),
    "GET /v1/memory/{namespace}": Route("GET", "/v1/memory/{namespace}", "GetV1MemoryNamespace", "List memories of a namespace in insertion order (without vectors)"),
    "POST /v1/memory/{namespace}": Route("POST", "/v1/memory/{namespace}", "PostV1MemoryNamespace", "Store a memory (an existing id is replaced); without a vector the built-in text embedder computes one"),
    "POST /v1/memory/{namespace}/search": Route("POST", "/v1/memory/{namespace}/search", "PostV1MemoryNamespaceSearch", "Nearest memories to a text or a vector, best first (score = cosine similarity)"),
    "GET /v1/memory/{namespace}/{id}": Route("GET", "/v1/memory/{namespace}/{id}", "GetV1MemoryNamespaceId", "One memory with its vector"),
    "DELETE /v1/memory/{namespace}/{id}": Route("DELETE", "/v1/memory/{namespace}/{id}", "DeleteV1MemoryNamespaceId", "Delete a memory; deleted is false when there was none"),
    "GET /v1/meta": Route("GET", "/v1/meta", "GetV1Meta", "Identity of the box: API version, Nostr identity (npub, hex public key, did:nostr), image hash, manifest sha256, federation mode, adapters and their contract versions, metrics endpoint"),
    "GET /v1/pods/{*}": Route("GET", "/v1/pods/{*}", "GetV1PodsRest", "A resource (its bytes, Content-Type, ETag, Last-Modified; 304 on a matching If-None-Match) or, for a path ending in /, a page of the container members"),
    "PUT /v1/pods/{*}": Route("PUT", "/v1/pods/{*}", "PutV1PodsRest", "Create or replace a resource with the request body and its Content-Type (201 created, 200 replaced); an empty PUT to a path ending in / creates a container"),
    "DELETE /v1/pods/{*}": Route("DELETE", "/v1/pods/{*}", "DeleteV1PodsRest", "Delete a resource, or an empty container; If-Match makes it conditional"),
    "GET /v1/sandbox/egress": Route("GET", "/v1/sandbox/egress", "GetV1SandboxEgress", "The allowlist the egress proxy enforces now, and whether it is the manifest's or a runtime change"),
    "PUT /v1/sandbox/egress": Route("PUT", "/v1/sandbox/egress", "PutV1SandboxEgress", "Replace the allowlist: effective for the next request, kept until the API restarts (the manifest is the list at boot)"),
    "GET /v1/snapshots": Route("GET", "/v1/snapshots", "GetV1Snapshots", "Every snapshot in the store, oldest first; ?agent=<id> only those of one agent"),
    "GET /v1/snapshots/{sid}": Route("GET", "/v1/snapshots/{sid}", "GetV1SnapshotsSid", "One snapshot, with what it shares with the others now and what only it holds"),
    "DELETE /v1/snapshots/{sid}": Route("DELETE", "/v1/snapshots/{sid}", "DeleteV1SnapshotsSid", "Delete a snapshot; the chunks no other snapshot refers to are removed (the answer says how many bytes that freed)"),
    "GET /v1/snapshots/{sid}/diff": Route("GET", "/v1/snapshots/{sid}/diff", "GetV1SnapshotsSidDiff", "What changed from snapshot ?from= to this one, from their entries alone (no file is read, nothing is built): paths added, deleted and modified, in path order, with counts of every change"),
    "GET /v1/snapshots/{sid}/files": Route("GET", "/v1/snapshots/{sid}/files", "GetV1SnapshotsSidFiles", "A file of a snapshot, read from the store (its bytes, ETag, Last-Modified, X-File-Mode); a directory's entries with ?list, or the directory as a tar stream with ?format=tar; no agent is forked. Links are listed (and packed) as links, never followed"),
    "GET /v1/snapshots/{sid}/files/{*}": Route("GET", "/v1/snapshots/{sid}/files/{*}", "GetV1SnapshotsSidFilesRest", "A file of a snapshot, read from the store (its bytes, ETag, Last-Modified, X-File-Mode); a directory's entries with ?list, or the directory as a tar stream with ?format=tar; no agent is forked. Links are listed (and packed) as links, never followed"),
    "PUT /v1/snapshots/{sid}/warm": Route("PUT", "/v1/snapshots/{sid}/warm", "PutV1SnapshotsSidWarm", "Keep copies of a snapshot built ahead, so that forks of it take one by a rename instead of copying every byte while they wait (0 removes them). Built one at a time in the background, each replaced once a fork takes it; each holds the snapshot's buildBytes on the workspace's volume"),
}

# Per route, {prefix}Params, Query, Headers, Body and Response (the JSON of its 2xx answers).

GetHealthResponseSlotsValue = TypedDict("GetHealthResponseSlotsValue", {
    "impl": str,
    "adapter": str,
    "critical": bool,
    "state": str,
    "reason": str,
    "since": str,
}, total=False)

GetHealthResponseMountsItem = TypedDict("GetHealthResponseMountsItem", {
    "name": str,
    "path": str,
    "writable": bool,
    "error": str,
}, total=False)

GetHealthResponseSeal = TypedDict("GetHealthResponseSeal", {
    "path": str,
    "present": bool,
    # why the seal is not coming: stage B failed or the seal timed out (as recorded in the bootstrap failure marker)
    "failure": str,
}, total=False)

# mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged}
GetHealthResponseFederation = TypedDict("GetHealthResponseFederation", {
    "mode": Literal["standalone", "client", "host"],
}, total=False)

# sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used
GetHealthResponseSandboxNamespaces = TypedDict("GetHealthResponseSandboxNamespaces", {
    "setting": Literal["auto", "required", "off"],
    "active": bool,
    "reason": str,
    "proc": Literal["fresh", "ro-bind"],
    "disableUserns": bool,
    "checkedAt": str,
}, total=False)

# agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it)
GetHealthResponseSandbox = TypedDict("GetHealthResponseSandbox", {
    "enabled": bool,
    "mode": Literal["confined", "unconfined", "unavailable", "unknown"],
    "landlockAbi": int,
    "requiredAbi": int,
    "missing": str,
    # sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used
    "namespaces": GetHealthResponseSandboxNamespaces,
}, total=False)

# present while agent events are published: the relays and which are connected
GetHealthResponseRelays = TypedDict("GetHealthResponseRelays", {
    "configured": list[str],
    "reachable": list[str],
}, total=False)

GetHealthResponse = TypedDict("GetHealthResponse", {
    "status": Literal["ok", "degraded"],
    "ready": bool,
    "uptimeSec": float,
    "startedAt": str,
    "slots": dict[str, GetHealthResponseSlotsValue],
    "mounts": list[GetHealthResponseMountsItem],
    "seal": GetHealthResponseSeal,
    "programs": dict[str, Any],
    # mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged}
    "federation": GetHealthResponseFederation,
    # agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it)
    "sandbox": GetHealthResponseSandbox,
    # present while agent events are published: the relays and which are connected
    "relays": GetHealthResponseRelays,
}, total=False)

GetLivezResponse = TypedDict("GetLivezResponse", {
    "live": Literal[True],
}, total=False)

GetReadyResponse = TypedDict("GetReadyResponse", {
    "ready": Literal[True],
    "since": str,
    "requirements": list[str],
    "degraded": list[str],
}, total=False)

# Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
GetV1AgentsResponseAgentsItemUsage = TypedDict("GetV1AgentsResponseAgentsItemUsage", {
    "rss_bytes": int,
    "pss_bytes": int,
    # inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify
    "inotify_instances": int,
    # The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify
    "inotify_watches": int,
    # Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes
    "memfd_bytes": int,
    "cpu_seconds": float,
    "processes": int,
    # Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample)
    "disk_bytes": int,
    # Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget)
    "disk_entries": int,
    # When the walk that measured disk_bytes began
    "disk_measured_at": str,
}, total=False)

# The budgets the agent runs under
GetV1AgentsResponseAgentsItemLimits = TypedDict("GetV1AgentsResponseAgentsItemLimits", {
    "memory_bytes": int,
    "cpu_seconds": int,
    "processes": int,
    "disk_bytes": int,
    # Entries under its directories the disk walk measures: more ends it with limit:entries
    "entries": int,
}, total=False)

# While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first)
GetV1AgentsResponseAgentsItemCheckpoints = TypedDict("GetV1AgentsResponseAgentsItemCheckpoints", {
    "everySec": int,
    "keep": int,
    "made": list[str],
}, total=False)

GetV1AgentsResponseAgentsItem = TypedDict("GetV1AgentsResponseAgentsItem", {
    "id": str,
    "name": str,
    "command": str,
    "args": list[str],
    "state": Literal["starting", "running", "exited", "failed", "terminated", "crash-loop"],
    "pid": int,
    "exitCode": int,
    "signal": str,
    "startedAt": str,
    "endedAt": str,
    # Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
    "usage": GetV1AgentsResponseAgentsItemUsage,
    # The budgets the agent runs under
    "limits": GetV1AgentsResponseAgentsItemLimits,
    # Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec)
    "reason": str,
    # Milliseconds from the start to the end, once ended
    "durationMs": int,
    # The manifest profile it was started from (agents.profiles.<name>)
    "profile": str,
    # The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input
    "tty": bool,
    # A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it
    "execOf": str,
    # Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it
    "cwd": str,
    # While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first)
    "checkpoints": GetV1AgentsResponseAgentsItemCheckpoints,
}, total=False)

GetV1AgentsResponse = TypedDict("GetV1AgentsResponse", {
    "agents": list[GetV1AgentsResponseAgentsItem],
}, total=False)

# Budgets below the manifest's sandbox.limits: a request may lower them, never raise them
PostV1AgentsBodyLimits = TypedDict("PostV1AgentsBodyLimits", {
    # Memory (PSS of the process tree), a number with an optional unit k, m or g
    "memory": str,
    # CPU seconds of the process tree
    "cpu_seconds": int,
    # Processes in the tree at once
    "processes": int,
    # Disk under its working and temporary directories, a number with an optional unit k, m or g
    "disk": str,
    # Entries (files, directories, links) under its directories the box measures and a snapshot may hold
    "entries": int,
}, total=False)

# Snapshot the agent's working directory every everySec seconds while it runs (label "checkpoint", made and audited as the box's own snapshots), keeping the keep newest of them: an older checkpoint is deleted as a newer one is made. A tick while one is being made is skipped. Not for an agent working in the workspace itself (cwd ".")
PostV1AgentsBodyCheckpoints = TypedDict("PostV1AgentsBodyCheckpoints", {
    # Seconds between checkpoints
    "everySec": Required[int],
    # How many of the newest checkpoints are kept (default 10)
    "keep": int,
}, total=False)

PostV1AgentsBody = TypedDict("PostV1AgentsBody", {
    # Start a profile of the manifest (agents.profiles.<name>): its command, args, env, cwd, providers, egress, limits, tty and deadlines. The request may then override only name, args, cwd, cols, rows, autonomy, add env variables, and lower limits, timeout_sec and idle_timeout_sec (docs/user/agents.md)
    "profile": str,
    # What the agent is; crash loops are counted by name (default with a profile: the profile name). No dot: it separates the memory namespaces agent.<name>.<more>
    "name": str,
    # Executable, absolute or found on the agent PATH (an ad-hoc spawn; never with a profile)
    "command": str,
    # Arguments (default: none, or the profile's)
    "args": list[str],
    # End the agent this many seconds after its start: state terminated, reason timeout
    "timeout_sec": int,
    # End the agent after this many seconds without output (and, on a terminal, without input): state terminated, reason idle
    "idle_timeout_sec": int,
    # Extra, non-secret variables; secret-looking names and values are refused
    "env": dict[str, str],
    # Working directory relative to the workspace
    "cwd": str,
    # How the agent meets a [policy] rule that asks: autonomous (refused at once, the rule named) or supervised (held as an approval request, GET /v1/approvals: this request stays open until an operator decides or policy.approval_timeout_sec denies it). Default: the manifest's policy.autonomy
    "autonomy": Literal["autonomous", "supervised"],
    # Budgets below the manifest's sandbox.limits: a request may lower them, never raise them
    "limits": PostV1AgentsBodyLimits,
    # Run the agent on a pseudo-terminal (stdin, stdout and stderr; its output is also captured as stdout)
    "tty": bool,
    # A snapshot id (snp_…) to start the agent on a copy of (a fork): its working directory is made from the snapshot, in cwd when given (it must not exist or be empty), else in a new <name>.<8 hex> directory; forks share nothing on disk
    "fromSnapshot": str,
    # Snapshot the agent's working directory every everySec seconds while it runs (label "checkpoint", made and audited as the box's own snapshots), keeping the keep newest of them: an older checkpoint is deleted as a newer one is made. A tick while one is being made is skipped. Not for an agent working in the workspace itself (cwd ".")
    "checkpoints": PostV1AgentsBodyCheckpoints,
    # Columns of the terminal (with tty; default 120)
    "cols": int,
    # Rows of the terminal (with tty; default 40)
    "rows": int,
}, total=False)

# Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
PostV1AgentsResponseAgentUsage = TypedDict("PostV1AgentsResponseAgentUsage", {
    "rss_bytes": int,
    "pss_bytes": int,
    # inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify
    "inotify_instances": int,
    # The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify
    "inotify_watches": int,
    # Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes
    "memfd_bytes": int,
    "cpu_seconds": float,
    "processes": int,
    # Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample)
    "disk_bytes": int,
    # Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget)
    "disk_entries": int,
    # When the walk that measured disk_bytes began
    "disk_measured_at": str,
}, total=False)

# The budgets the agent runs under
PostV1AgentsResponseAgentLimits = TypedDict("PostV1AgentsResponseAgentLimits", {
    "memory_bytes": int,
    "cpu_seconds": int,
    "processes": int,
    "disk_bytes": int,
    # Entries under its directories the disk walk measures: more ends it with limit:entries
    "entries": int,
}, total=False)

PostV1AgentsResponseAgent = TypedDict("PostV1AgentsResponseAgent", {
    "id": str,
    "name": str,
    "command": str,
    "args": list[str],
    "state": Literal["starting", "running", "exited", "failed", "terminated", "crash-loop"],
    "pid": int,
    "exitCode": int,
    "signal": str,
    "startedAt": str,
    "endedAt": str,
    # Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
    "usage": PostV1AgentsResponseAgentUsage,
    # The budgets the agent runs under
    "limits": PostV1AgentsResponseAgentLimits,
    # Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec)
    "reason": str,
    # Milliseconds from the start to the end, once ended
    "durationMs": int,
    # The manifest profile it was started from (agents.profiles.<name>)
    "profile": str,
    # The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input
    "tty": bool,
    # A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it
    "execOf": str,
    # Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it
    "cwd": str,
}, total=False)

# With fromSnapshot: how the working directory was made
PostV1AgentsResponseFork = TypedDict("PostV1AgentsResponseFork", {
    "snapshot": str,
    # Made by a clone of the snapshot (btrfs): in constant time, sharing its bytes
    "cloned": bool,
    # A copy built ahead (PUT /v1/snapshots/{sid}/warm) was taken: no copy was made while the spawn waited
    "warm": bool,
}, total=False)

PostV1AgentsResponse = TypedDict("PostV1AgentsResponse", {
    "agent": PostV1AgentsResponseAgent,
    # With fromSnapshot: how the working directory was made
    "fork": PostV1AgentsResponseFork,
}, total=False)

GetV1AgentsIdParams = TypedDict("GetV1AgentsIdParams", {
    "id": Required[str],
}, total=False)

# Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
GetV1AgentsIdResponseAgentUsage = TypedDict("GetV1AgentsIdResponseAgentUsage", {
    "rss_bytes": int,
    "pss_bytes": int,
    # inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify
    "inotify_instances": int,
    # The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify
    "inotify_watches": int,
    # Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes
    "memfd_bytes": int,
    "cpu_seconds": float,
    "processes": int,
    # Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample)
    "disk_bytes": int,
    # Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget)
    "disk_entries": int,
    # When the walk that measured disk_bytes began
    "disk_measured_at": str,
}, total=False)

# The budgets the agent runs under
GetV1AgentsIdResponseAgentLimits = TypedDict("GetV1AgentsIdResponseAgentLimits", {
    "memory_bytes": int,
    "cpu_seconds": int,
    "processes": int,
    "disk_bytes": int,
    # Entries under its directories the disk walk measures: more ends it with limit:entries
    "entries": int,
}, total=False)

# While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first)
GetV1AgentsIdResponseAgentCheckpoints = TypedDict("GetV1AgentsIdResponseAgentCheckpoints", {
    "everySec": int,
    "keep": int,
    "made": list[str],
}, total=False)

GetV1AgentsIdResponseAgentRefusalsItem = TypedDict("GetV1AgentsIdResponseAgentRefusalsItem", {
    "at": str,
    "host": str,
    "port": int,
    "reason": str,
    "allowWith": str,
}, total=False)

GetV1AgentsIdResponseAgent = TypedDict("GetV1AgentsIdResponseAgent", {
    "id": str,
    "name": str,
    "command": str,
    "args": list[str],
    "state": Literal["starting", "running", "exited", "failed", "terminated", "crash-loop"],
    "pid": int,
    "exitCode": int,
    "signal": str,
    "startedAt": str,
    "endedAt": str,
    # Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
    "usage": GetV1AgentsIdResponseAgentUsage,
    # The budgets the agent runs under
    "limits": GetV1AgentsIdResponseAgentLimits,
    # Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec)
    "reason": str,
    # Milliseconds from the start to the end, once ended
    "durationMs": int,
    # The manifest profile it was started from (agents.profiles.<name>)
    "profile": str,
    # The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input
    "tty": bool,
    # A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it
    "execOf": str,
    # Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it
    "cwd": str,
    # While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first)
    "checkpoints": GetV1AgentsIdResponseAgentCheckpoints,
    # The agent's recent egress refusals (GET of one agent only, on a box with an egress proxy), newest last, at most 20: the host and port, the rule that refused, and the manifest key that would allow it
    "refusals": list[GetV1AgentsIdResponseAgentRefusalsItem],
}, total=False)

GetV1AgentsIdResponse = TypedDict("GetV1AgentsIdResponse", {
    "agent": GetV1AgentsIdResponseAgent,
}, total=False)

DeleteV1AgentsIdParams = TypedDict("DeleteV1AgentsIdParams", {
    "id": Required[str],
}, total=False)

DeleteV1AgentsIdQuery = TypedDict("DeleteV1AgentsIdQuery", {
    "graceMs": int,
}, total=False)

# Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
DeleteV1AgentsIdResponseAgentUsage = TypedDict("DeleteV1AgentsIdResponseAgentUsage", {
    "rss_bytes": int,
    "pss_bytes": int,
    # inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify
    "inotify_instances": int,
    # The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify
    "inotify_watches": int,
    # Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes
    "memfd_bytes": int,
    "cpu_seconds": float,
    "processes": int,
    # Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample)
    "disk_bytes": int,
    # Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget)
    "disk_entries": int,
    # When the walk that measured disk_bytes began
    "disk_measured_at": str,
}, total=False)

# The budgets the agent runs under
DeleteV1AgentsIdResponseAgentLimits = TypedDict("DeleteV1AgentsIdResponseAgentLimits", {
    "memory_bytes": int,
    "cpu_seconds": int,
    "processes": int,
    "disk_bytes": int,
    # Entries under its directories the disk walk measures: more ends it with limit:entries
    "entries": int,
}, total=False)

DeleteV1AgentsIdResponseAgent = TypedDict("DeleteV1AgentsIdResponseAgent", {
    "id": str,
    "name": str,
    "command": str,
    "args": list[str],
    "state": Literal["starting", "running", "exited", "failed", "terminated", "crash-loop"],
    "pid": int,
    "exitCode": int,
    "signal": str,
    "startedAt": str,
    "endedAt": str,
    # Resource use of the agent's process tree as last sampled (about once a second), kept after the exit
    "usage": DeleteV1AgentsIdResponseAgentUsage,
    # The budgets the agent runs under
    "limits": DeleteV1AgentsIdResponseAgentLimits,
    # Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec)
    "reason": str,
    # Milliseconds from the start to the end, once ended
    "durationMs": int,
    # The manifest profile it was started from (agents.profiles.<name>)
    "profile": str,
    # The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input
    "tty": bool,
    # A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it
    "execOf": str,
    # Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it
    "cwd": str,
}, total=False)

DeleteV1AgentsIdResponse = TypedDict("DeleteV1AgentsIdResponse", {
    "agent": DeleteV1AgentsIdResponseAgent,
}, total=False)

PostV1AgentsIdExecParams = TypedDict("PostV1AgentsIdExecParams", {
    "id": Required[str],
}, total=False)

PostV1AgentsIdExecBody = TypedDict("PostV1AgentsIdExecBody", {
    # Executable, absolute or found on the agent's PATH
    "command": Required[str],
    "args": list[str],
    # Extra, non-secret variables on top of the agent's environment
    "env": dict[str, str],
    # Run the command on a pseudo-terminal of its own (GET /v1/agents/{newId}/terminal)
    "tty": bool,
    "cols": int,
    "rows": int,
}, total=False)

PostV1AgentsIdExecResponse = TypedDict("PostV1AgentsIdExecResponse", {
    "agent": dict[str, Any],
}, total=False)

GetV1AgentsIdFilesParams = TypedDict("GetV1AgentsIdFilesParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

GetV1AgentsIdFilesQuery = TypedDict("GetV1AgentsIdFilesQuery", {
    "list": str,
    "format": Literal["tar"],
}, total=False)

GetV1AgentsIdFilesResponseEntriesItem = TypedDict("GetV1AgentsIdFilesResponseEntriesItem", {
    "name": str,
    "type": Literal["file", "dir", "symlink", "other"],
    "size": int,
    # Permission bits in octal, e.g. 0644
    "mode": str,
    "mtime": str,
    # A symbolic link's target, as data (links are never followed)
    "target": str,
}, total=False)

# The file bytes (application/octet-stream), a tar stream (application/x-tar), or with ?list this JSON
GetV1AgentsIdFilesResponse = TypedDict("GetV1AgentsIdFilesResponse", {
    "path": str,
    "entries": list[GetV1AgentsIdFilesResponseEntriesItem],
    "truncated": bool,
}, total=False)

PutV1AgentsIdFilesParams = TypedDict("PutV1AgentsIdFilesParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

PutV1AgentsIdFilesHeaders = TypedDict("PutV1AgentsIdFilesHeaders", {
    "x-file-mode": str,
    "if-match": str,
    "if-none-match": str,
}, total=False)

PutV1AgentsIdFilesResponse = TypedDict("PutV1AgentsIdFilesResponse", {
    "path": str,
    "created": bool,
    "size": int,
    "etag": str,
}, total=False)

PostV1AgentsIdFilesParams = TypedDict("PostV1AgentsIdFilesParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

PostV1AgentsIdFilesHeaders = TypedDict("PostV1AgentsIdFilesHeaders", {
    "x-file-mode": str,
}, total=False)

PostV1AgentsIdFilesResponse = TypedDict("PostV1AgentsIdFilesResponse", {
    "path": str,
    "files": int,
    "dirs": int,
    "symlinks": int,
    "bytes": int,
}, total=False)

DeleteV1AgentsIdFilesParams = TypedDict("DeleteV1AgentsIdFilesParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

DeleteV1AgentsIdFilesQuery = TypedDict("DeleteV1AgentsIdFilesQuery", {
    "recursive": str,
}, total=False)

DeleteV1AgentsIdFilesResponse = TypedDict("DeleteV1AgentsIdFilesResponse", {
    "path": str,
    "removed": int,
}, total=False)

GetV1AgentsIdFilesRestParams = TypedDict("GetV1AgentsIdFilesRestParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

GetV1AgentsIdFilesRestQuery = TypedDict("GetV1AgentsIdFilesRestQuery", {
    "list": str,
    "format": Literal["tar"],
}, total=False)

GetV1AgentsIdFilesRestResponseEntriesItem = TypedDict("GetV1AgentsIdFilesRestResponseEntriesItem", {
    "name": str,
    "type": Literal["file", "dir", "symlink", "other"],
    "size": int,
    # Permission bits in octal, e.g. 0644
    "mode": str,
    "mtime": str,
    # A symbolic link's target, as data (links are never followed)
    "target": str,
}, total=False)

# The file bytes (application/octet-stream), a tar stream (application/x-tar), or with ?list this JSON
GetV1AgentsIdFilesRestResponse = TypedDict("GetV1AgentsIdFilesRestResponse", {
    "path": str,
    "entries": list[GetV1AgentsIdFilesRestResponseEntriesItem],
    "truncated": bool,
}, total=False)

PutV1AgentsIdFilesRestParams = TypedDict("PutV1AgentsIdFilesRestParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

PutV1AgentsIdFilesRestHeaders = TypedDict("PutV1AgentsIdFilesRestHeaders", {
    "x-file-mode": str,
    "if-match": str,
    "if-none-match": str,
}, total=False)

PutV1AgentsIdFilesRestResponse = TypedDict("PutV1AgentsIdFilesRestResponse", {
    "path": str,
    "created": bool,
    "size": int,
    "etag": str,
}, total=False)

PostV1AgentsIdFilesRestParams = TypedDict("PostV1AgentsIdFilesRestParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

PostV1AgentsIdFilesRestHeaders = TypedDict("PostV1AgentsIdFilesRestHeaders", {
    "x-file-mode": str,
}, total=False)

PostV1AgentsIdFilesRestResponse = TypedDict("PostV1AgentsIdFilesRestResponse", {
    "path": str,
    "files": int,
    "dirs": int,
    "symlinks": int,
    "bytes": int,
}, total=False)

DeleteV1AgentsIdFilesRestParams = TypedDict("DeleteV1AgentsIdFilesRestParams", {
    "id": Required[str],
    # The path relative to the agent's working directory; empty for the directory itself
    "*": Required[str],
}, total=False)

DeleteV1AgentsIdFilesRestQuery = TypedDict("DeleteV1AgentsIdFilesRestQuery", {
    "recursive": str,
}, total=False)

DeleteV1AgentsIdFilesRestResponse = TypedDict("DeleteV1AgentsIdFilesRestResponse", {
    "path": str,
    "removed": int,
}, total=False)

PostV1AgentsIdInputParams = TypedDict("PostV1AgentsIdInputParams", {
    "id": Required[str],
}, total=False)

PostV1AgentsIdInputBody = TypedDict("PostV1AgentsIdInputBody", {
    "data": Required[str],
}, total=False)

PostV1AgentsIdInputRequestsParams = TypedDict("PostV1AgentsIdInputRequestsParams", {
    "id": Required[str],
}, total=False)

PostV1AgentsIdInputRequestsBody = TypedDict("PostV1AgentsIdInputRequestsBody", {
    # What the agent asks, shown to the operator
    "prompt": Required[str],
}, total=False)

PostV1AgentsIdInputRequestsResponseInputRequestClosedAnswer = TypedDict("PostV1AgentsIdInputRequestsResponseInputRequestClosedAnswer", {
    "length": int,
    "enter": bool,
    "by": dict[str, Any],
}, total=False)

PostV1AgentsIdInputRequestsResponseInputRequestClosed = TypedDict("PostV1AgentsIdInputRequestsResponseInputRequestClosed", {
    "at": str,
    "why": Literal["answer", "output", "input", "agent", "agent-ended", "api-closed"],
    "answer": PostV1AgentsIdInputRequestsResponseInputRequestClosedAnswer,
}, total=False)

PostV1AgentsIdInputRequestsResponseInputRequest = TypedDict("PostV1AgentsIdInputRequestsResponseInputRequest", {
    "id": str,
    "agentId": str,
    # The agent's name
    "agent": str,
    # prompt: seen on its quiet terminal; explicit: the agent asked through the API
    "reason": Literal["prompt", "explicit"],
    # The prompt line that matched, or the agent's own text
    "prompt": str,
    # Which prompt pattern matched (a prompt)
    "pattern": str,
    # The last lines of its screen when raised (a prompt), trimmed
    "lines": list[str],
    "created": str,
    "state": Literal["open", "answered", "withdrawn", "ended"],
    "closed": PostV1AgentsIdInputRequestsResponseInputRequestClosed,
}, total=False)

PostV1AgentsIdInputRequestsResponse = TypedDict("PostV1AgentsIdInputRequestsResponse", {
    "inputRequest": PostV1AgentsIdInputRequestsResponseInputRequest,
}, total=False)

GetV1AgentsIdInputRequestsRequestIdParams = TypedDict("GetV1AgentsIdInputRequestsRequestIdParams", {
    "id": Required[str],
    "requestId": Required[str],
}, total=False)

GetV1AgentsIdInputRequestsRequestIdQuery = TypedDict("GetV1AgentsIdInputRequestsRequestIdQuery", {
    "wait": int,
}, total=False)

GetV1AgentsIdInputRequestsRequestIdResponseInputRequestClosedAnswer = TypedDict("GetV1AgentsIdInputRequestsRequestIdResponseInputRequestClosedAnswer", {
    "length": int,
    "enter": bool,
    "by": dict[str, Any],
}, total=False)

GetV1AgentsIdInputRequestsRequestIdResponseInputRequestClosed = TypedDict("GetV1AgentsIdInputRequestsRequestIdResponseInputRequestClosed", {
    "at": str,
    "why": Literal["answer", "output", "input", "agent", "agent-ended", "api-closed"],
    "answer": GetV1AgentsIdInputRequestsRequestIdResponseInputRequestClosedAnswer,
}, total=False)

GetV1AgentsIdInputRequestsRequestIdResponseInputRequestAnswer = TypedDict("GetV1AgentsIdInputRequestsRequestIdResponseInputRequestAnswer", {
    "text": str,
}, total=False)

GetV1AgentsIdInputRequestsRequestIdResponseInputRequest = TypedDict("GetV1AgentsIdInputRequestsRequestIdResponseInputRequest", {
    "id": str,
    "agentId": str,
    # The agent's name
    "agent": str,
    # prompt: seen on its quiet terminal; explicit: the agent asked through the API
    "reason": Literal["prompt", "explicit"],
    # The prompt line that matched, or the agent's own text
    "prompt": str,
    # Which prompt pattern matched (a prompt)
    "pattern": str,
    # The last lines of its screen when raised (a prompt), trimmed
    "lines": list[str],
    "created": str,
    "state": Literal["open", "answered", "withdrawn", "ended"],
    "closed": GetV1AgentsIdInputRequestsRequestIdResponseInputRequestClosed,
    "answer": GetV1AgentsIdInputRequestsRequestIdResponseInputRequestAnswer,
}, total=False)

GetV1AgentsIdInputRequestsRequestIdResponse = TypedDict("GetV1AgentsIdInputRequestsRequestIdResponse", {
    "inputRequest": GetV1AgentsIdInputRequestsRequestIdResponseInputRequest,
}, total=False)

DeleteV1AgentsIdInputRequestsRequestIdParams = TypedDict("DeleteV1AgentsIdInputRequestsRequestIdParams", {
    "id": Required[str],
    "requestId": Required[str],
}, total=False)

DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequestClosedAnswer = TypedDict("DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequestClosedAnswer", {
    "length": int,
    "enter": bool,
    "by": dict[str, Any],
}, total=False)

DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequestClosed = TypedDict("DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequestClosed", {
    "at": str,
    "why": Literal["answer", "output", "input", "agent", "agent-ended", "api-closed"],
    "answer": DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequestClosedAnswer,
}, total=False)

DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequest = TypedDict("DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequest", {
    "id": str,
    "agentId": str,
    # The agent's name
    "agent": str,
    # prompt: seen on its quiet terminal; explicit: the agent asked through the API
    "reason": Literal["prompt", "explicit"],
    # The prompt line that matched, or the agent's own text
    "prompt": str,
    # Which prompt pattern matched (a prompt)
    "pattern": str,
    # The last lines of its screen when raised (a prompt), trimmed
    "lines": list[str],
    "created": str,
    "state": Literal["open", "answered", "withdrawn", "ended"],
    "closed": DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequestClosed,
}, total=False)

DeleteV1AgentsIdInputRequestsRequestIdResponse = TypedDict("DeleteV1AgentsIdInputRequestsRequestIdResponse", {
    "inputRequest": DeleteV1AgentsIdInputRequestsRequestIdResponseInputRequest,
}, total=False)

GetV1AgentsIdOutputParams = TypedDict("GetV1AgentsIdOutputParams", {
    "id": Required[str],
}, total=False)

GetV1AgentsIdOutputQuery = TypedDict("GetV1AgentsIdOutputQuery", {
    "after": int,
    "follow": bool,
}, total=False)

GetV1AgentsIdOutputResponseChunksItem = TypedDict("GetV1AgentsIdOutputResponseChunksItem", {
    "seq": int,
    "stream": str,
    "time": str,
    "text": str,
}, total=False)

GetV1AgentsIdOutputResponse = TypedDict("GetV1AgentsIdOutputResponse", {
    "chunks": list[GetV1AgentsIdOutputResponseChunksItem],
}, total=False)

PostV1AgentsIdRestoreParams = TypedDict("PostV1AgentsIdRestoreParams", {
    "id": Required[str],
}, total=False)

PostV1AgentsIdRestoreBody = TypedDict("PostV1AgentsIdRestoreBody", {
    # A snapshot id (snp_…)
    "snapshot": Required[str],
}, total=False)

PostV1AgentsIdRestoreResponse = TypedDict("PostV1AgentsIdRestoreResponse", {
    "restored": str,
    "agent": str,
    "files": int,
    "bytes": int,
    # true when the directory is a snapshot of the snapshot's btrfs clone (no byte copied), false when built by copying
    "cloned": bool,
    # true when the directory is a copy of the snapshot built ahead (PUT /v1/snapshots/{sid}/warm), renamed into place
    "warm": bool,
}, total=False)

PostV1AgentsIdSnapshotsParams = TypedDict("PostV1AgentsIdSnapshotsParams", {
    "id": Required[str],
}, total=False)

PostV1AgentsIdSnapshotsBody = TypedDict("PostV1AgentsIdSnapshotsBody", {
    # A note shown in listings: one line of text (no control characters)
    "label": str,
}, total=False)

PostV1AgentsIdSnapshotsResponseSnapshotAgent = TypedDict("PostV1AgentsIdSnapshotsResponseSnapshotAgent", {
    "id": str,
    "name": str,
    "cwd": str,
}, total=False)

PostV1AgentsIdSnapshotsResponseSnapshotStats = TypedDict("PostV1AgentsIdSnapshotsResponseSnapshotStats", {
    "files": int,
    "dirs": int,
    "symlinks": int,
    # FIFOs, sockets, devices and files of other owners linked in: never captured
    "skipped": int,
    # Sum of the files' sizes
    "bytes": int,
    # Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse)
    "holeBytes": int,
    # What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded
    "buildBytes": int,
    "chunks": int,
    # Bytes of the distinct chunks it refers to (what it holds once deduplicated)
    "storedBytes": int,
    "addedChunks": int,
    # Bytes this snapshot added to the store; the rest was there already (shared)
    "addedBytes": int,
    # Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread
    "reusedFiles": int,
    # Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none
    "aheadFiles": int,
    # Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them
    "reusedDirs": int,
    # Files that kept changing while read (three reads); kept as last read
    "changed": int,
    "durationMs": int,
}, total=False)

# GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed
PostV1AgentsIdSnapshotsResponseSnapshotWarm = TypedDict("PostV1AgentsIdSnapshotsResponseSnapshotWarm", {
    "wanted": int,
    "ready": int,
    "building": bool,
    "error": str,
}, total=False)

# GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)
PostV1AgentsIdSnapshotsResponseSnapshotSharing = TypedDict("PostV1AgentsIdSnapshotsResponseSnapshotSharing", {
    "storedBytes": int,
    "sharedBytes": int,
    "exclusiveBytes": int,
    "chargedBytes": int,
}, total=False)

PostV1AgentsIdSnapshotsResponseSnapshot = TypedDict("PostV1AgentsIdSnapshotsResponseSnapshot", {
    "id": str,
    "label": str,
    "createdAt": str,
    "agent": PostV1AgentsIdSnapshotsResponseSnapshotAgent,
    "stats": PostV1AgentsIdSnapshotsResponseSnapshotStats,
    # The first 100 files that kept changing while read
    "changedPaths": list[str],
    # It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes
    "clone": bool,
    # GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed
    "warm": PostV1AgentsIdSnapshotsResponseSnapshotWarm,
    # GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)
    "sharing": PostV1AgentsIdSnapshotsResponseSnapshotSharing,
}, total=False)

PostV1AgentsIdSnapshotsResponse = TypedDict("PostV1AgentsIdSnapshotsResponse", {
    "snapshot": PostV1AgentsIdSnapshotsResponseSnapshot,
}, total=False)

GetV1ApprovalsResponseApprovalsItemRule = TypedDict("GetV1ApprovalsResponseApprovalsItemRule", {
    "index": int,
    "id": str,
}, total=False)

GetV1ApprovalsResponseApprovalsItemDecisionBySignature = TypedDict("GetV1ApprovalsResponseApprovalsItemDecisionBySignature", {
    "id": str,
    "sig": str,
}, total=False)

GetV1ApprovalsResponseApprovalsItemDecisionBy = TypedDict("GetV1ApprovalsResponseApprovalsItemDecisionBy", {
    "actor": dict[str, Any],
    "signed": bool,
    "pubkey": str,
    "signature": GetV1ApprovalsResponseApprovalsItemDecisionBySignature,
}, total=False)

GetV1ApprovalsResponseApprovalsItemDecision = TypedDict("GetV1ApprovalsResponseApprovalsItemDecision", {
    "outcome": str,
    "reason": str,
    "scope": str,
    "at": str,
    "by": GetV1ApprovalsResponseApprovalsItemDecisionBy,
}, total=False)

GetV1ApprovalsResponseApprovalsItem = TypedDict("GetV1ApprovalsResponseApprovalsItem", {
    "id": str,
    # sha256: of the canonical JSON of {action, agent, arguments, policy}
    "digest": str,
    "action": Literal["spawn", "egress", "provider", "egress-change"],
    # The agent's name (null: an operator's action)
    "agent": str | None,
    "agentId": str | None,
    "arguments": dict[str, Any],
    "rule": GetV1ApprovalsResponseApprovalsItemRule | None,
    "reason": str,
    "policy": str,
    "created": str,
    "expires": str,
    "state": Literal["pending", "approved", "denied", "timeout"],
    "decision": GetV1ApprovalsResponseApprovalsItemDecision,
}, total=False)

GetV1ApprovalsResponse = TypedDict("GetV1ApprovalsResponse", {
    "approvals": list[GetV1ApprovalsResponseApprovalsItem],
}, total=False)

GetV1ApprovalsIdParams = TypedDict("GetV1ApprovalsIdParams", {
    "id": Required[str],
}, total=False)

GetV1ApprovalsIdResponseApprovalRule = TypedDict("GetV1ApprovalsIdResponseApprovalRule", {
    "index": int,
    "id": str,
}, total=False)

GetV1ApprovalsIdResponseApprovalDecisionBySignature = TypedDict("GetV1ApprovalsIdResponseApprovalDecisionBySignature", {
    "id": str,
    "sig": str,
}, total=False)

GetV1ApprovalsIdResponseApprovalDecisionBy = TypedDict("GetV1ApprovalsIdResponseApprovalDecisionBy", {
    "actor": dict[str, Any],
    "signed": bool,
    "pubkey": str,
    "signature": GetV1ApprovalsIdResponseApprovalDecisionBySignature,
}, total=False)

GetV1ApprovalsIdResponseApprovalDecision = TypedDict("GetV1ApprovalsIdResponseApprovalDecision", {
    "outcome": str,
    "reason": str,
    "scope": str,
    "at": str,
    "by": GetV1ApprovalsIdResponseApprovalDecisionBy,
}, total=False)

GetV1ApprovalsIdResponseApproval = TypedDict("GetV1ApprovalsIdResponseApproval", {
    "id": str,
    # sha256: of the canonical JSON of {action, agent, arguments, policy}
    "digest": str,
    "action": Literal["spawn", "egress", "provider", "egress-change"],
    # The agent's name (null: an operator's action)
    "agent": str | None,
    "agentId": str | None,
    "arguments": dict[str, Any],
    "rule": GetV1ApprovalsIdResponseApprovalRule | None,
    "reason": str,
    "policy": str,
    "created": str,
    "expires": str,
    "state": Literal["pending", "approved", "denied", "timeout"],
    "decision": GetV1ApprovalsIdResponseApprovalDecision,
}, total=False)

GetV1ApprovalsIdResponse = TypedDict("GetV1ApprovalsIdResponse", {
    "approval": GetV1ApprovalsIdResponseApproval,
}, total=False)

PostV1ApprovalsIdParams = TypedDict("PostV1ApprovalsIdParams", {
    "id": Required[str],
}, total=False)

PostV1ApprovalsIdBody = TypedDict("PostV1ApprovalsIdBody", {
    "decision": Required[Literal["approve", "deny"]],
    "reason": str,
    # once (this request), agent (later asks of the same rule by the same agent, until the API restarts) or until=<ISO time> (the same, until then; at most 24 h)
    "scope": str,
    # The digest the decider saw: a request whose digest differs is refused (409 ABX_ERR_APPROVAL_CHANGED)
    "digest": str,
    # A Nostr event of kind 4751 signed by a key of mesh.operator_pubkeys, its content the JSON statement {request, digest, policy, decision, scope, expires}
    "signed": dict[str, Any],
}, total=False)

PostV1ApprovalsIdResponseApprovalRule = TypedDict("PostV1ApprovalsIdResponseApprovalRule", {
    "index": int,
    "id": str,
}, total=False)

PostV1ApprovalsIdResponseApprovalDecisionBySignature = TypedDict("PostV1ApprovalsIdResponseApprovalDecisionBySignature", {
    "id": str,
    "sig": str,
}, total=False)

PostV1ApprovalsIdResponseApprovalDecisionBy = TypedDict("PostV1ApprovalsIdResponseApprovalDecisionBy", {
    "actor": dict[str, Any],
    "signed": bool,
    "pubkey": str,
    "signature": PostV1ApprovalsIdResponseApprovalDecisionBySignature,
}, total=False)

PostV1ApprovalsIdResponseApprovalDecision = TypedDict("PostV1ApprovalsIdResponseApprovalDecision", {
    "outcome": str,
    "reason": str,
    "scope": str,
    "at": str,
    "by": PostV1ApprovalsIdResponseApprovalDecisionBy,
}, total=False)

PostV1ApprovalsIdResponseApproval = TypedDict("PostV1ApprovalsIdResponseApproval", {
    "id": str,
    # sha256: of the canonical JSON of {action, agent, arguments, policy}
    "digest": str,
    "action": Literal["spawn", "egress", "provider", "egress-change"],
    # The agent's name (null: an operator's action)
    "agent": str | None,
    "agentId": str | None,
    "arguments": dict[str, Any],
    "rule": PostV1ApprovalsIdResponseApprovalRule | None,
    "reason": str,
    "policy": str,
    "created": str,
    "expires": str,
    "state": Literal["pending", "approved", "denied", "timeout"],
    "decision": PostV1ApprovalsIdResponseApprovalDecision,
}, total=False)

PostV1ApprovalsIdResponse = TypedDict("PostV1ApprovalsIdResponse", {
    "approval": PostV1ApprovalsIdResponseApproval,
}, total=False)

GetV1AuthKeyProofQuery = TypedDict("GetV1AuthKeyProofQuery", {
    # A challenge: 32 random bytes as 64 lower-case hex digits
    "challenge": Required[str],
}, total=False)

GetV1AuthKeyProofResponse = TypedDict("GetV1AuthKeyProofResponse", {
    "proof": str,
}, total=False)

GetV1BeadsQuery = TypedDict("GetV1BeadsQuery", {
    "status": Literal["open", "claimed", "closed"],
    "parentId": str,
    "limit": int,
    "cursor": str,
}, total=False)

GetV1BeadsResponseItemsItem = TypedDict("GetV1BeadsResponseItemsItem", {
    "id": str,
    "kind": Literal["epic", "task"],
    "title": str,
    "body": str,
    "parentId": str,
    "dependsOn": list[str],
    "status": Literal["open", "claimed", "closed"],
    "claimedBy": str,
    "claimedAt": str,
    "closedAt": str,
    "outcome": Literal["success", "failure", "cancelled"],
    "outcomeNote": str,
    "createdAt": str,
    "updatedAt": str,
}, total=False)

GetV1BeadsResponse = TypedDict("GetV1BeadsResponse", {
    "items": list[GetV1BeadsResponseItemsItem],
    "nextCursor": str,
}, total=False)

PostV1BeadsBody = TypedDict("PostV1BeadsBody", {
    # An epic groups tasks (default task)
    "kind": Literal["epic", "task"],
    "title": Required[str],
    "body": str,
    # The epic this bead belongs to
    "parentId": str,
    # Beads that must close with success first
    "dependsOn": list[str],
}, total=False)

PostV1BeadsResponseBead = TypedDict("PostV1BeadsResponseBead", {
    "id": str,
    "kind": Literal["epic", "task"],
    "title": str,
    "body": str,
    "parentId": str,
    "dependsOn": list[str],
    "status": Literal["open", "claimed", "closed"],
    "claimedBy": str,
    "claimedAt": str,
    "closedAt": str,
    "outcome": Literal["success", "failure", "cancelled"],
    "outcomeNote": str,
    "createdAt": str,
    "updatedAt": str,
}, total=False)

PostV1BeadsResponse = TypedDict("PostV1BeadsResponse", {
    "bead": PostV1BeadsResponseBead,
}, total=False)

GetV1BeadsReadyQuery = TypedDict("GetV1BeadsReadyQuery", {
    "limit": int,
    "cursor": str,
}, total=False)

GetV1BeadsReadyResponseItemsItem = TypedDict("GetV1BeadsReadyResponseItemsItem", {
    "id": str,
    "kind": Literal["epic", "task"],
    "title": str,
    "body": str,
    "parentId": str,
    "dependsOn": list[str],
    "status": Literal["open", "claimed", "closed"],
    "claimedBy": str,
    "claimedAt": str,
    "closedAt": str,
    "outcome": Literal["success", "failure", "cancelled"],
    "outcomeNote": str,
    "createdAt": str,
    "updatedAt": str,
}, total=False)

GetV1BeadsReadyResponse = TypedDict("GetV1BeadsReadyResponse", {
    "items": list[GetV1BeadsReadyResponseItemsItem],
    "nextCursor": str,
}, total=False)

GetV1BeadsIdParams = TypedDict("GetV1BeadsIdParams", {
    "id": Required[str],
}, total=False)

GetV1BeadsIdResponseBead = TypedDict("GetV1BeadsIdResponseBead", {
    "id": str,
    "kind": Literal["epic", "task"],
    "title": str,
    "body": str,
    "parentId": str,
    "dependsOn": list[str],
    "status": Literal["open", "claimed", "closed"],
    "claimedBy": str,
    "claimedAt": str,
    "closedAt": str,
    "outcome": Literal["success", "failure", "cancelled"],
    "outcomeNote": str,
    "createdAt": str,
    "updatedAt": str,
}, total=False)

GetV1BeadsIdResponse = TypedDict("GetV1BeadsIdResponse", {
    "bead": GetV1BeadsIdResponseBead,
}, total=False)

PostV1BeadsIdClaimParams = TypedDict("PostV1BeadsIdClaimParams", {
    "id": Required[str],
}, total=False)

PostV1BeadsIdClaimBody = TypedDict("PostV1BeadsIdClaimBody", {
    "claimant": Required[str],
}, total=False)

PostV1BeadsIdClaimResponseBead = TypedDict("PostV1BeadsIdClaimResponseBead", {
    "id": str,
    "kind": Literal["epic", "task"],
    "title": str,
    "body": str,
    "parentId": str,
    "dependsOn": list[str],
    "status": Literal["open", "claimed", "closed"],
    "claimedBy": str,
    "claimedAt": str,
    "closedAt": str,
    "outcome": Literal["success", "failure", "cancelled"],
    "outcomeNote": str,
    "createdAt": str,
    "updatedAt": str,
}, total=False)

PostV1BeadsIdClaimResponse = TypedDict("PostV1BeadsIdClaimResponse", {
    "bead": PostV1BeadsIdClaimResponseBead,
    "claimed": bool,
}, total=False)

PostV1BeadsIdCloseParams = TypedDict("PostV1BeadsIdCloseParams", {
    "id": Required[str],
}, total=False)

PostV1BeadsIdCloseBody = TypedDict("PostV1BeadsIdCloseBody", {
    "outcome": Required[Literal["success", "failure", "cancelled"]],
    "note": str,
}, total=False)

PostV1BeadsIdCloseResponseBead = TypedDict("PostV1BeadsIdCloseResponseBead", {
    "id": str,
    "kind": Literal["epic", "task"],
    "title": str,
    "body": str,
    "parentId": str,
    "dependsOn": list[str],
    "status": Literal["open", "claimed", "closed"],
    "claimedBy": str,
    "claimedAt": str,
    "closedAt": str,
    "outcome": Literal["success", "failure", "cancelled"],
    "outcomeNote": str,
    "createdAt": str,
    "updatedAt": str,
}, total=False)

PostV1BeadsIdCloseResponse = TypedDict("PostV1BeadsIdCloseResponse", {
    "bead": PostV1BeadsIdCloseResponseBead,
}, total=False)

GetV1DashboardStreamQuery = TypedDict("GetV1DashboardStreamQuery", {
    # Comma-separated topics
    "topics": str,
}, total=False)

GetV1EventsQuery = TypedDict("GetV1EventsQuery", {
    # Only these kinds (repeat the parameter for several)
    "kind": list[str],
    # ISO-8601 time, inclusive
    "since": str,
    # ISO-8601 time, inclusive
    "until": str,
    "limit": int,
    "cursor": str,
}, total=False)

GetV1EventsResponseItemsItem = TypedDict("GetV1EventsResponseItemsItem", {
    "id": str,
    "seq": int,
    "time": str,
    "kind": str,
    "source": str,
    "data": dict[str, Any],
}, total=False)

GetV1EventsResponse = TypedDict("GetV1EventsResponse", {
    "items": list[GetV1EventsResponseItemsItem],
    "nextCursor": str,
}, total=False)

PostV1EventsBody = TypedDict("PostV1EventsBody", {
    # Dotted event kind, e.g. agent.note
    "kind": Required[str],
    # Who emits the event (default api)
    "source": str,
    # Free-form JSON payload
    "data": dict[str, Any],
}, total=False)

PostV1EventsResponseEvent = TypedDict("PostV1EventsResponseEvent", {
    "id": str,
    "seq": int,
    "time": str,
    "kind": str,
    "source": str,
    "data": dict[str, Any],
}, total=False)

PostV1EventsResponse = TypedDict("PostV1EventsResponse", {
    "event": PostV1EventsResponseEvent,
}, total=False)

GetV1EventsProofConsistencyQuery = TypedDict("GetV1EventsProofConsistencyQuery", {
    "from": Required[int],
    "to": int,
}, total=False)

GetV1EventsProofConsistencyResponse = TypedDict("GetV1EventsProofConsistencyResponse", {
    "from": int,
    "to": int,
    # base64 hashes
    "path": list[str],
}, total=False)

GetV1EventsProofInclusionQuery = TypedDict("GetV1EventsProofInclusionQuery", {
    "index": Required[int],
    "size": int,
}, total=False)

GetV1EventsProofInclusionResponse = TypedDict("GetV1EventsProofInclusionResponse", {
    "index": int,
    "size": int,
    # base64 SHA-256(0x00 || the stored line)
    "leafHash": str,
    # base64 hashes, deepest sibling first
    "path": list[str],
}, total=False)

GetV1EventsStreamQuery = TypedDict("GetV1EventsStreamQuery", {
    # Only these kinds (repeat the parameter for several)
    "kind": list[str],
    # ISO-8601 time, inclusive
    "since": str,
}, total=False)

GetV1InputRequestsResponseInputRequestsItemClosedAnswer = TypedDict("GetV1InputRequestsResponseInputRequestsItemClosedAnswer", {
    "length": int,
    "enter": bool,
    "by": dict[str, Any],
}, total=False)

GetV1InputRequestsResponseInputRequestsItemClosed = TypedDict("GetV1InputRequestsResponseInputRequestsItemClosed", {
    "at": str,
    "why": Literal["answer", "output", "input", "agent", "agent-ended", "api-closed"],
    "answer": GetV1InputRequestsResponseInputRequestsItemClosedAnswer,
}, total=False)

GetV1InputRequestsResponseInputRequestsItem = TypedDict("GetV1InputRequestsResponseInputRequestsItem", {
    "id": str,
    "agentId": str,
    # The agent's name
    "agent": str,
    # prompt: seen on its quiet terminal; explicit: the agent asked through the API
    "reason": Literal["prompt", "explicit"],
    # The prompt line that matched, or the agent's own text
    "prompt": str,
    # Which prompt pattern matched (a prompt)
    "pattern": str,
    # The last lines of its screen when raised (a prompt), trimmed
    "lines": list[str],
    "created": str,
    "state": Literal["open", "answered", "withdrawn", "ended"],
    "closed": GetV1InputRequestsResponseInputRequestsItemClosed,
}, total=False)

GetV1InputRequestsResponse = TypedDict("GetV1InputRequestsResponse", {
    "inputRequests": list[GetV1InputRequestsResponseInputRequestsItem],
}, total=False)

GetV1InputRequestsIdParams = TypedDict("GetV1InputRequestsIdParams", {
    "id": Required[str],
}, total=False)

GetV1InputRequestsIdResponseInputRequestClosedAnswer = TypedDict("GetV1InputRequestsIdResponseInputRequestClosedAnswer", {
    "length": int,
    "enter": bool,
    "by": dict[str, Any],
}, total=False)

GetV1InputRequestsIdResponseInputRequestClosed = TypedDict("GetV1InputRequestsIdResponseInputRequestClosed", {
    "at": str,
    "why": Literal["answer", "output", "input", "agent", "agent-ended", "api-closed"],
    "answer": GetV1InputRequestsIdResponseInputRequestClosedAnswer,
}, total=False)

GetV1InputRequestsIdResponseInputRequest = TypedDict("GetV1InputRequestsIdResponseInputRequest", {
    "id": str,
    "agentId": str,
    # The agent's name
    "agent": str,
    # prompt: seen on its quiet terminal; explicit: the agent asked through the API
    "reason": Literal["prompt", "explicit"],
    # The prompt line that matched, or the agent's own text
    "prompt": str,
    # Which prompt pattern matched (a prompt)
    "pattern": str,
    # The last lines of its screen when raised (a prompt), trimmed
    "lines": list[str],
    "created": str,
    "state": Literal["open", "answered", "withdrawn", "ended"],
    "closed": GetV1InputRequestsIdResponseInputRequestClosed,
}, total=False)

GetV1InputRequestsIdResponse = TypedDict("GetV1InputRequestsIdResponse", {
    "inputRequest": GetV1InputRequestsIdResponseInputRequest,
}, total=False)

PostV1InputRequestsIdParams = TypedDict("PostV1InputRequestsIdParams", {
    "id": Required[str],
}, total=False)

PostV1InputRequestsIdBody = TypedDict("PostV1InputRequestsIdBody", {
    # Typed into the terminal as keystrokes (a prompt), or handed to the agent (explicit)
    "text": Required[str],
    # Press Enter (\r) after the text
    "enter": bool,
}, total=False)

PostV1InputRequestsIdResponseInputRequestClosedAnswer = TypedDict("PostV1InputRequestsIdResponseInputRequestClosedAnswer", {
    "length": int,
    "enter": bool,
    "by": dict[str, Any],
}, total=False)

PostV1InputRequestsIdResponseInputRequestClosed = TypedDict("PostV1InputRequestsIdResponseInputRequestClosed", {
    "at": str,
    "why": Literal["answer", "output", "input", "agent", "agent-ended", "api-closed"],
    "answer": PostV1InputRequestsIdResponseInputRequestClosedAnswer,
}, total=False)

PostV1InputRequestsIdResponseInputRequest = TypedDict("PostV1InputRequestsIdResponseInputRequest", {
    "id": str,
    "agentId": str,
    # The agent's name
    "agent": str,
    # prompt: seen on its quiet terminal; explicit: the agent asked through the API
    "reason": Literal["prompt", "explicit"],
    # The prompt line that matched, or the agent's own text
    "prompt": str,
    # Which prompt pattern matched (a prompt)
    "pattern": str,
    # The last lines of its screen when raised (a prompt), trimmed
    "lines": list[str],
    "created": str,
    "state": Literal["open", "answered", "withdrawn", "ended"],
    "closed": PostV1InputRequestsIdResponseInputRequestClosed,
}, total=False)

PostV1InputRequestsIdResponse = TypedDict("PostV1InputRequestsIdResponse", {
    "inputRequest": PostV1InputRequestsIdResponseInputRequest,
}, total=False)

GetV1MemoryNamespaceParams = TypedDict("GetV1MemoryNamespaceParams", {
    # Isolates callers: letters, digits, ".", "_", "-"
    "namespace": Required[str],
}, total=False)

GetV1MemoryNamespaceQuery = TypedDict("GetV1MemoryNamespaceQuery", {
    "limit": int,
    "cursor": str,
}, total=False)

GetV1MemoryNamespaceResponseItemsItem = TypedDict("GetV1MemoryNamespaceResponseItemsItem", {
    "id": str,
    "namespace": str,
    "text": str,
    "metadata": dict[str, Any],
    "createdAt": str,
}, total=False)

GetV1MemoryNamespaceResponse = TypedDict("GetV1MemoryNamespaceResponse", {
    "items": list[GetV1MemoryNamespaceResponseItemsItem],
    "nextCursor": str,
}, total=False)

PostV1MemoryNamespaceParams = TypedDict("PostV1MemoryNamespaceParams", {
    # Isolates callers: letters, digits, ".", "_", "-"
    "namespace": Required[str],
}, total=False)

PostV1MemoryNamespaceBody = TypedDict("PostV1MemoryNamespaceBody", {
    "id": str,
    "text": Required[str],
    # Any JSON object, at most 16384 bytes
    "metadata": dict[str, Any],
    # integrations.memory.dimension numbers
    "vector": list[float],
}, total=False)

PostV1MemoryNamespaceResponse = TypedDict("PostV1MemoryNamespaceResponse", {
    "id": str,
}, total=False)

PostV1MemoryNamespaceSearchParams = TypedDict("PostV1MemoryNamespaceSearchParams", {
    # Isolates callers: letters, digits, ".", "_", "-"
    "namespace": Required[str],
}, total=False)

PostV1MemoryNamespaceSearchBody = TypedDict("PostV1MemoryNamespaceSearchBody", {
    "text": str,
    # integrations.memory.dimension numbers
    "vector": list[float],
    "k": Required[int],
}, total=False)

PostV1MemoryNamespaceSearchResponseHitsItem = TypedDict("PostV1MemoryNamespaceSearchResponseHitsItem", {
    "id": str,
    "score": float,
    "text": str,
    "metadata": dict[str, Any],
}, total=False)

PostV1MemoryNamespaceSearchResponse = TypedDict("PostV1MemoryNamespaceSearchResponse", {
    "hits": list[PostV1MemoryNamespaceSearchResponseHitsItem],
}, total=False)

GetV1MemoryNamespaceIdParams = TypedDict("GetV1MemoryNamespaceIdParams", {
    # Isolates callers: letters, digits, ".", "_", "-"
    "namespace": Required[str],
    "id": Required[str],
}, total=False)

GetV1MemoryNamespaceIdResponseMemory = TypedDict("GetV1MemoryNamespaceIdResponseMemory", {
    "id": str,
    "namespace": str,
    "text": str,
    "metadata": dict[str, Any],
    "createdAt": str,
    "vector": list[float],
}, total=False)

GetV1MemoryNamespaceIdResponse = TypedDict("GetV1MemoryNamespaceIdResponse", {
    "memory": GetV1MemoryNamespaceIdResponseMemory,
}, total=False)

DeleteV1MemoryNamespaceIdParams = TypedDict("DeleteV1MemoryNamespaceIdParams", {
    # Isolates callers: letters, digits, ".", "_", "-"
    "namespace": Required[str],
    "id": Required[str],
}, total=False)

DeleteV1MemoryNamespaceIdResponse = TypedDict("DeleteV1MemoryNamespaceIdResponse", {
    "deleted": bool,
}, total=False)

GetV1MetaResponseIdentity = TypedDict("GetV1MetaResponseIdentity", {
    "npub": str,
    "pubkey": str,
    "did": str,
}, total=False)

# mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged}
GetV1MetaResponseFederation = TypedDict("GetV1MetaResponseFederation", {
    "mode": Literal["standalone", "client", "host"],
}, total=False)

GetV1MetaResponseAdaptersValue = TypedDict("GetV1MetaResponseAdaptersValue", {
    "impl": str,
    "adapter": str,
    "contractVersion": str,
    "state": str,
}, total=False)

GetV1MetaResponseMetrics = TypedDict("GetV1MetaResponseMetrics", {
    "url": str,
}, total=False)

# sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used
GetV1MetaResponseSandboxNamespaces = TypedDict("GetV1MetaResponseSandboxNamespaces", {
    "setting": Literal["auto", "required", "off"],
    "active": bool,
    "reason": str,
    "proc": Literal["fresh", "ro-bind"],
    "disableUserns": bool,
    "checkedAt": str,
}, total=False)

# agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it)
GetV1MetaResponseSandbox = TypedDict("GetV1MetaResponseSandbox", {
    "enabled": bool,
    "mode": Literal["confined", "unconfined", "unavailable", "unknown"],
    "landlockAbi": int,
    "requiredAbi": int,
    "missing": str,
    # sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used
    "namespaces": GetV1MetaResponseSandboxNamespaces,
}, total=False)

# the event log's origin and the signed-note verifier key its checkpoints verify with (absent when the events slot keeps no Merkle tree)
GetV1MetaResponseEventLog = TypedDict("GetV1MetaResponseEventLog", {
    "origin": str,
    "verifierKey": str,
}, total=False)

GetV1MetaResponse = TypedDict("GetV1MetaResponse", {
    "name": str,
    "version": str,
    "imageHash": str,
    "manifestSha256": str,
    "identity": GetV1MetaResponseIdentity,
    # mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged}
    "federation": GetV1MetaResponseFederation,
    "adapters": dict[str, GetV1MetaResponseAdaptersValue],
    "metrics": GetV1MetaResponseMetrics,
    # the agents' listener: the API's base URL agents are given (AGENTBOX_API_URL), on 127.0.0.1; it serves agent-token routes only
    "agentApiUrl": str,
    # agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it)
    "sandbox": GetV1MetaResponseSandbox,
    # the event log's origin and the signed-note verifier key its checkpoints verify with (absent when the events slot keeps no Merkle tree)
    "eventLog": GetV1MetaResponseEventLog,
}, total=False)

GetV1PodsRestParams = TypedDict("GetV1PodsRestParams", {
    # The pod path after /v1/pods/; a trailing / names a container
    "*": Required[str],
}, total=False)

GetV1PodsRestQuery = TypedDict("GetV1PodsRestQuery", {
    "limit": int,
    "cursor": str,
}, total=False)

GetV1PodsRestHeaders = TypedDict("GetV1PodsRestHeaders", {
    # Write or delete only if the current ETag is one of these (or * for any existing)
    "if-match": str,
    # PUT: * creates only if absent. GET: answer 304 when the ETag matches
    "if-none-match": str,
}, total=False)

PutV1PodsRestParams = TypedDict("PutV1PodsRestParams", {
    # The pod path after /v1/pods/; a trailing / names a container
    "*": Required[str],
}, total=False)

PutV1PodsRestHeaders = TypedDict("PutV1PodsRestHeaders", {
    # Write or delete only if the current ETag is one of these (or * for any existing)
    "if-match": str,
    # PUT: * creates only if absent. GET: answer 304 when the ETag matches
    "if-none-match": str,
}, total=False)

PutV1PodsRestResponse = TypedDict("PutV1PodsRestResponse", {
    "path": str,
    "etag": str,
    "created": bool,
}, total=False)

DeleteV1PodsRestParams = TypedDict("DeleteV1PodsRestParams", {
    # The pod path after /v1/pods/; a trailing / names a container
    "*": Required[str],
}, total=False)

DeleteV1PodsRestHeaders = TypedDict("DeleteV1PodsRestHeaders", {
    # Write or delete only if the current ETag is one of these (or * for any existing)
    "if-match": str,
    # PUT: * creates only if absent. GET: answer 304 when the ETag matches
    "if-none-match": str,
}, total=False)

GetV1SandboxEgressResponse = TypedDict("GetV1SandboxEgressResponse", {
    "port": int,
    "source": Literal["manifest", "runtime"],
    "allow_domains": list[str],
    "allow_ports": list[int],
}, total=False)

PutV1SandboxEgressBody = TypedDict("PutV1SandboxEgressBody", {
    # Domains agents may reach: exact names (example.com) or *.suffix (*.example.com matches any subdomain, not example.com itself). Changeable at run time through the API. Loopback, link-local, private and metadata addresses are refused unless listed here.
    "allow_domains": Required[list[str]],
    # Destination ports agents may reach on allowed domains.
    "allow_ports": Required[list[int]],
}, total=False)

PutV1SandboxEgressResponse = TypedDict("PutV1SandboxEgressResponse", {
    "port": int,
    "source": Literal["manifest", "runtime"],
    "allow_domains": list[str],
    "allow_ports": list[int],
}, total=False)

GetV1SnapshotsQuery = TypedDict("GetV1SnapshotsQuery", {
    "agent": str,
}, total=False)

GetV1SnapshotsResponseSnapshotsItemAgent = TypedDict("GetV1SnapshotsResponseSnapshotsItemAgent", {
    "id": str,
    "name": str,
    "cwd": str,
}, total=False)

GetV1SnapshotsResponseSnapshotsItemStats = TypedDict("GetV1SnapshotsResponseSnapshotsItemStats", {
    "files": int,
    "dirs": int,
    "symlinks": int,
    # FIFOs, sockets, devices and files of other owners linked in: never captured
    "skipped": int,
    # Sum of the files' sizes
    "bytes": int,
    # Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse)
    "holeBytes": int,
    # What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded
    "buildBytes": int,
    "chunks": int,
    # Bytes of the distinct chunks it refers to (what it holds once deduplicated)
    "storedBytes": int,
    "addedChunks": int,
    # Bytes this snapshot added to the store; the rest was there already (shared)
    "addedBytes": int,
    # Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread
    "reusedFiles": int,
    # Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none
    "aheadFiles": int,
    # Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them
    "reusedDirs": int,
    # Files that kept changing while read (three reads); kept as last read
    "changed": int,
    "durationMs": int,
}, total=False)

# GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed
GetV1SnapshotsResponseSnapshotsItemWarm = TypedDict("GetV1SnapshotsResponseSnapshotsItemWarm", {
    "wanted": int,
    "ready": int,
    "building": bool,
    "error": str,
}, total=False)

# GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)
GetV1SnapshotsResponseSnapshotsItemSharing = TypedDict("GetV1SnapshotsResponseSnapshotsItemSharing", {
    "storedBytes": int,
    "sharedBytes": int,
    "exclusiveBytes": int,
    "chargedBytes": int,
}, total=False)

GetV1SnapshotsResponseSnapshotsItem = TypedDict("GetV1SnapshotsResponseSnapshotsItem", {
    "id": str,
    "label": str,
    "createdAt": str,
    "agent": GetV1SnapshotsResponseSnapshotsItemAgent,
    "stats": GetV1SnapshotsResponseSnapshotsItemStats,
    # The first 100 files that kept changing while read
    "changedPaths": list[str],
    # It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes
    "clone": bool,
    # GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed
    "warm": GetV1SnapshotsResponseSnapshotsItemWarm,
    # GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)
    "sharing": GetV1SnapshotsResponseSnapshotsItemSharing,
}, total=False)

GetV1SnapshotsResponse = TypedDict("GetV1SnapshotsResponse", {
    "snapshots": list[GetV1SnapshotsResponseSnapshotsItem],
}, total=False)

GetV1SnapshotsSidParams = TypedDict("GetV1SnapshotsSidParams", {
    # A snapshot id (snp_…)
    "sid": Required[str],
}, total=False)

GetV1SnapshotsSidResponseSnapshotAgent = TypedDict("GetV1SnapshotsSidResponseSnapshotAgent", {
    "id": str,
    "name": str,
    "cwd": str,
}, total=False)

GetV1SnapshotsSidResponseSnapshotStats = TypedDict("GetV1SnapshotsSidResponseSnapshotStats", {
    "files": int,
    "dirs": int,
    "symlinks": int,
    # FIFOs, sockets, devices and files of other owners linked in: never captured
    "skipped": int,
    # Sum of the files' sizes
    "bytes": int,
    # Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse)
    "holeBytes": int,
    # What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded
    "buildBytes": int,
    "chunks": int,
    # Bytes of the distinct chunks it refers to (what it holds once deduplicated)
    "storedBytes": int,
    "addedChunks": int,
    # Bytes this snapshot added to the store; the rest was there already (shared)
    "addedBytes": int,
    # Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread
    "reusedFiles": int,
    # Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none
    "aheadFiles": int,
    # Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them
    "reusedDirs": int,
    # Files that kept changing while read (three reads); kept as last read
    "changed": int,
    "durationMs": int,
}, total=False)

# GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed
GetV1SnapshotsSidResponseSnapshotWarm = TypedDict("GetV1SnapshotsSidResponseSnapshotWarm", {
    "wanted": int,
    "ready": int,
    "building": bool,
    "error": str,
}, total=False)

# GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)
GetV1SnapshotsSidResponseSnapshotSharing = TypedDict("GetV1SnapshotsSidResponseSnapshotSharing", {
    "storedBytes": int,
    "sharedBytes": int,
    "exclusiveBytes": int,
    "chargedBytes": int,
}, total=False)

GetV1SnapshotsSidResponseSnapshot = TypedDict("GetV1SnapshotsSidResponseSnapshot", {
    "id": str,
    "label": str,
    "createdAt": str,
    "agent": GetV1SnapshotsSidResponseSnapshotAgent,
    "stats": GetV1SnapshotsSidResponseSnapshotStats,
    # The first 100 files that kept changing while read
    "changedPaths": list[str],
    # It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes
    "clone": bool,
    # GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed
    "warm": GetV1SnapshotsSidResponseSnapshotWarm,
    # GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget)
    "sharing": GetV1SnapshotsSidResponseSnapshotSharing,
}, total=False)

GetV1SnapshotsSidResponse = TypedDict("GetV1SnapshotsSidResponse", {
    "snapshot": GetV1SnapshotsSidResponseSnapshot,
}, total=False)

DeleteV1SnapshotsSidParams = TypedDict("DeleteV1SnapshotsSidParams", {
    # A snapshot id (snp_…)
    "sid": Required[str],
}, total=False)

DeleteV1SnapshotsSidResponse = TypedDict("DeleteV1SnapshotsSidResponse", {
    "deleted": str,
    "freedBytes": int,
    "freedChunks": int,
}, total=False)

GetV1SnapshotsSidDiffParams = TypedDict("GetV1SnapshotsSidDiffParams", {
    # A snapshot id (snp_…)
    "sid": Required[str],
}, total=False)

GetV1SnapshotsSidDiffQuery = TypedDict("GetV1SnapshotsSidDiffQuery", {
    # The earlier snapshot (any agent’s)
    "from": Required[str],
    # The most changes listed
    "limit": int,
    # The nextCursor of the page before: the changes after it
    "cursor": str,
}, total=False)

GetV1SnapshotsSidDiffResponseCounts = TypedDict("GetV1SnapshotsSidDiffResponseCounts", {
    "added": int,
    "deleted": int,
    "modified": int,
}, total=False)

GetV1SnapshotsSidDiffResponseChangesItem = TypedDict("GetV1SnapshotsSidDiffResponseChangesItem", {
    "path": str,
    "change": Literal["added", "deleted", "modified"],
    # In the later snapshot (in the earlier one for a deletion)
    "type": Literal["file", "dir", "symlink"],
    # A modification's aspects: content (a file's bytes), mode (permission bits), target (a link's), type. A modification time alone is no change
    "what": list[Literal["type", "content", "mode", "target"]],
    # A file's size (in the earlier snapshot for a deletion)
    "size": int,
    # A modified file's size in the earlier snapshot
    "sizeBefore": int,
}, total=False)

GetV1SnapshotsSidDiffResponse = TypedDict("GetV1SnapshotsSidDiffResponse", {
    "from": str,
    "to": str,
    "counts": GetV1SnapshotsSidDiffResponseCounts,
    # Bytes of the files added
    "addedBytes": int,
    # Bytes of the files deleted
    "deletedBytes": int,
    "changes": list[GetV1SnapshotsSidDiffResponseChangesItem],
    # More changes after those listed (see counts)
    "truncated": bool,
    # When truncated: pass as ?cursor= for the next page
    "nextCursor": str,
}, total=False)

GetV1SnapshotsSidFilesParams = TypedDict("GetV1SnapshotsSidFilesParams", {
    # A snapshot id (snp_…)
    "sid": Required[str],
    # The path relative to the working directory the snapshot was taken of; empty for that directory
    "*": Required[str],
}, total=False)

GetV1SnapshotsSidFilesQuery = TypedDict("GetV1SnapshotsSidFilesQuery", {
    "list": str,
    "format": Literal["tar"],
}, total=False)

GetV1SnapshotsSidFilesResponseEntriesItem = TypedDict("GetV1SnapshotsSidFilesResponseEntriesItem", {
    "name": str,
    "type": Literal["file", "dir", "symlink", "other"],
    "size": int,
    # Permission bits in octal, e.g. 0644
    "mode": str,
    "mtime": str,
    # A symbolic link's target, as data (links are never followed)
    "target": str,
}, total=False)

# The file bytes (application/octet-stream), a tar stream (application/x-tar), or with ?list this JSON
GetV1SnapshotsSidFilesResponse = TypedDict("GetV1SnapshotsSidFilesResponse", {
    "path": str,
    "entries": list[GetV1SnapshotsSidFilesResponseEntriesItem],
    "truncated": bool,
}, total=False)

GetV1SnapshotsSidFilesRestParams = TypedDict("GetV1SnapshotsSidFilesRestParams", {
    # A snapshot id (snp_…)
    "sid": Required[str],
    # The path relative to the working directory the snapshot was taken of; empty for that directory
    "*": Required[str],
}, total=False)

GetV1SnapshotsSidFilesRestQuery = TypedDict("GetV1SnapshotsSidFilesRestQuery", {
    "list": str,
    "format": Literal["tar"],
}, total=False)

GetV1SnapshotsSidFilesRestResponseEntriesItem = TypedDict("GetV1SnapshotsSidFilesRestResponseEntriesItem", {
    "name": str,
    "type": Literal["file", "dir", "symlink", "other"],
    "size": int,
    # Permission bits in octal, e.g. 0644
    "mode": str,
    "mtime": str,
    # A symbolic link's target, as data (links are never followed)
    "target": str,
}, total=False)

# The file bytes (application/octet-stream), a tar stream (application/x-tar), or with ?list this JSON
GetV1SnapshotsSidFilesRestResponse = TypedDict("GetV1SnapshotsSidFilesRestResponse", {
    "path": str,
    "entries": list[GetV1SnapshotsSidFilesRestResponseEntriesItem],
    "truncated": bool,
}, total=False)

PutV1SnapshotsSidWarmParams = TypedDict("PutV1SnapshotsSidWarmParams", {
    # A snapshot id (snp_…)
    "sid": Required[str],
}, total=False)

PutV1SnapshotsSidWarmBody = TypedDict("PutV1SnapshotsSidWarmBody", {
    # Copies to keep ready
    "forks": Required[int],
}, total=False)

PutV1SnapshotsSidWarmResponseWarm = TypedDict("PutV1SnapshotsSidWarmResponseWarm", {
    "wanted": int,
    "ready": int,
    "building": bool,
    "error": str,
}, total=False)

PutV1SnapshotsSidWarmResponse = TypedDict("PutV1SnapshotsSidWarmResponse", {
    "snapshot": str,
    "warm": PutV1SnapshotsSidWarmResponseWarm,
}, total=False)

PostV1AgentsIdInputResponse: TypeAlias = None
PostV1AgentsIdSnapshotsBody: TypeAlias = PostV1AgentsIdSnapshotsBody | None
GetV1ApprovalsStreamResponse: TypeAlias = str
GetV1DashboardStreamResponse: TypeAlias = str
GetV1EventsCheckpointResponse: TypeAlias = str
PostV1EventsCheckpointResponse: TypeAlias = str
GetV1EventsStreamResponse: TypeAlias = str
GetV1PodsRestResponse: TypeAlias = Any
DeleteV1PodsRestResponse: TypeAlias = None
