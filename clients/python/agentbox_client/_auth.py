"""How the client authenticates: the box API key, an agent's token, or NIP-98 events signed by the caller's function."""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias


@dataclass(frozen=True)
class ApiKey:
    """The box's API key (the operator's credential: every route)."""

    key: str


@dataclass(frozen=True)
class AgentToken:
    """An agent's AGENTBOX_TOKEN (abx_agent_…): only that agent's scope."""

    token: str


# Takes the unsigned kind-27235 event ({kind, created_at, tags, content}) and returns it signed
# (with id, pubkey and sig), e.g. by a Nostr library or a signing service the caller trusts.
Nip98Signer: TypeAlias = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Nip98:
    """
    NIP-98 requests signed by a key in the box's mesh.operator_pubkeys. The signature (BIP-340
    Schnorr over secp256k1) is the caller's: the standard library has no secp256k1, and elliptic
    curve code written here would be neither vetted nor constant-time. The client builds the event
    (URL, method, body hash) and signs every attempt anew, as the box accepts each event once.
    """

    sign: Nip98Signer


Credential: TypeAlias = ApiKey | AgentToken | Nip98


def authorization(credential: Credential | None, url: str, method: str, body: bytes | None) -> str | None:
    """The Authorization header of one attempt of a request, or None without a credential."""
    if credential is None:
        return None
    if isinstance(credential, ApiKey):
        return f"Bearer {credential.key}"
    if isinstance(credential, AgentToken):
        return f"Bearer {credential.token}"
    tags = [["u", url], ["method", method]]
    if body:
        tags.append(["payload", hashlib.sha256(body).hexdigest()])
    event = credential.sign({"kind": 27235, "created_at": int(time.time()), "tags": tags, "content": ""})
    return "Nostr " + base64.b64encode(json.dumps(event, separators=(",", ":")).encode()).decode()
