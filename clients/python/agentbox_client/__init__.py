"""Agentbox's Python client: a typed, synchronous client of the management API, on the standard library only."""

from ._agents import Agent, End, Output, OutputChunk, OutputEvent, WorkspaceFile
from ._auth import AgentToken, ApiKey, Credential, Nip98, Nip98Signer
from ._errors import AgentboxError, AgentboxErrorCode, ClientErrorCode
from ._groups import BoxEvent, PodResource
from ._route import routes_of
from ._routes import ERROR_CODES, ROUTES, ErrorCode, Route, RouteKey
from ._sse import SseMessage
from .client import Agentbox

__all__ = [
    "Agent",
    "AgentToken",
    "Agentbox",
    "AgentboxError",
    "AgentboxErrorCode",
    "ApiKey",
    "BoxEvent",
    "ClientErrorCode",
    "Credential",
    "ERROR_CODES",
    "End",
    "ErrorCode",
    "Nip98",
    "Nip98Signer",
    "Output",
    "OutputChunk",
    "OutputEvent",
    "PodResource",
    "ROUTES",
    "Route",
    "RouteKey",
    "SseMessage",
    "WorkspaceFile",
    "routes_of",
]
