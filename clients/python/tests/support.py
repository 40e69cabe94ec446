"""What the tests share: the box from the environment, refusals as values, agent tokens, and a NIP-98 signer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from typing import Any

from agentbox_client import Agentbox, AgentboxError, ApiKey


def env(name: str) -> str:
    """A variable the tap test sets; missing, the test fails rather than skips (a skip could hide a broken run)."""
    value = os.environ.get(name)
    if not value:
        raise AssertionError(f"{name} is not set: run these tests through tests/api/python-client.test.ts")
    return value


def box_url() -> str:
    return env("AGENTBOX_URL")


def operator() -> Agentbox:
    """A client with the box's API key."""
    return Agentbox(box_url(), ApiKey(env("AGENTBOX_KEY")))


def refusal(call: Callable[[], Any]) -> AgentboxError:
    """The AgentboxError `call` raises; an AssertionError when it answers."""
    try:
        answer = call()
    except AgentboxError as err:
        return err
    raise AssertionError(f"expected a refusal, got {answer!r}")


def token_of(pid: int, within: float = 10.0) -> str:
    """An agent's AGENTBOX_TOKEN, read from its environment once its process has exec'd."""
    deadline = time.monotonic() + within
    while True:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                found = re.search(rb"(?:^|\0)AGENTBOX_TOKEN=([^\0]+)", f.read())
            if found:
                return found.group(1).decode()
        except OSError:
            pass  # not readable yet, or already gone: the deadline says which
        if time.monotonic() > deadline:
            raise AssertionError(f"no AGENTBOX_TOKEN in /proc/{pid}/environ within {within} s")
        time.sleep(0.05)


# Signs with nostr-tools from the repository's node_modules: Python's standard library has no secp256k1.
_SIGN = (
    "import {finalizeEvent} from 'nostr-tools/pure'; let s=''; for await (const c of process.stdin) s+=c;"
    " process.stdout.write(JSON.stringify(finalizeEvent(JSON.parse(s), new Uint8Array(Buffer.from(process.env.SECRET, 'hex')))));"
)


def node_signer(secret_hex: str, seen: list[dict[str, Any]] | None = None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A NIP-98 signer of `secret_hex` (noting each template in `seen`)."""

    def sign(template: dict[str, Any]) -> dict[str, Any]:
        if seen is not None:
            seen.append(template)
        done = subprocess.run(
            ["node", "--input-type=module", "-e", _SIGN],
            input=json.dumps(template),
            capture_output=True,
            text=True,
            cwd=env("AGENTBOX_REPO"),
            env={**os.environ, "SECRET": secret_hex},
            check=True,
        )
        return dict(json.loads(done.stdout))

    return sign
