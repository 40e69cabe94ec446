"""The rest of the API on a real box: probes, beads, events, approvals, off slots, typed errors and NIP-98."""

from __future__ import annotations

import hashlib
import hmac
import os
import unittest

from agentbox_client import Agentbox, AgentboxError, ApiKey, Nip98

from .support import box_url, env, node_signer, operator, refusal


class Probes(unittest.TestCase):
    def test_probes_and_meta(self) -> None:
        box = operator()
        self.assertEqual(Agentbox(box_url()).livez().get("live"), True, "livez needs no credential")
        self.assertIn("ready", box.ready())
        self.assertIn(box.health().get("status"), ("ok", "degraded"))
        self.assertIsInstance(box.meta().get("version"), str)
        # The box proves it holds the key without it being sent: the answer is the client's own HMAC.
        challenge = os.urandom(32).hex()
        derived = hmac.new(env("AGENTBOX_KEY").encode(), b"agentbox key proof v1", hashlib.sha256).digest()
        expected = hmac.new(derived, bytes.fromhex(challenge), hashlib.sha256).hexdigest()
        self.assertEqual(Agentbox(box_url()).key_proof(challenge).get("proof"), expected)


class Beads(unittest.TestCase):
    def test_create_claim_close(self) -> None:
        box = operator()
        bead = box.beads.create({"title": "from python"})["bead"]
        self.assertEqual(bead.get("status"), "open")
        self.assertIn(bead["id"], [b.get("id") for b in box.beads.ready().get("items", [])])
        self.assertEqual(box.beads.claim(bead["id"], "py")["claimed"], True)
        err = refusal(lambda: box.beads.claim(bead["id"], "someone-else"))
        self.assertEqual((err.code, err.status), ("ABX_ERR_CONFLICT", 409))
        self.assertEqual(box.beads.get(bead["id"])["bead"].get("status"), "claimed")
        self.assertEqual(box.beads.close(bead["id"], {"outcome": "success"})["bead"].get("status"), "closed")
        self.assertIn(bead["id"], [b.get("id") for b in box.beads.list({"status": "closed"}).get("items", [])])


class Events(unittest.TestCase):
    def test_append_query_stream(self) -> None:
        box = operator()
        appended = box.events.append({"kind": "python.test", "data": {"n": 1}})["event"]
        self.assertEqual(appended.get("kind"), "python.test")
        items = box.events.query({"kind": ["python.test"]}).get("items", [])
        self.assertEqual([e.get("data") for e in items], [{"n": 1}])
        # The stream replays from `since`, so the appended event comes first whatever the timing.
        for event in box.events.stream({"kind": ["python.test"], "since": "2000-01-01T00:00:00Z"}, timeout=10):
            self.assertEqual((event.get("kind"), event.get("data")), ("python.test", {"n": 1}))
            break
        else:
            self.fail("the stream ended without the event")
        # The log's checkpoint and proofs: answered, or refused with a typed error.
        for call in (box.events.sign_checkpoint, box.events.checkpoint, lambda: box.events.inclusion_proof({"index": 0, "size": 1}), lambda: box.events.consistency_proof({"from": 1, "to": 1})):
            try:
                self.assertTrue(call())
            except AgentboxError as err:
                self.assertTrue(err.code.startswith("ABX_ERR_"), err)


class Approvals(unittest.TestCase):
    def test_list_get_decide_stream(self) -> None:
        box = operator()
        self.assertEqual(box.approvals.list().get("approvals"), [])
        for call in (lambda: box.approvals.get("apr_000000000000000000"), lambda: box.approvals.decide("apr_000000000000000000", {"decision": "deny"})):
            err = refusal(call)
            self.assertEqual((err.code, err.status), ("ABX_ERR_APPROVAL_NOT_FOUND", 404))
        first = next(iter(box.approvals.stream(timeout=10)))
        self.assertEqual(first.event, "snapshot")
        message = next(iter(box.dashboard.stream(topics="agents", timeout=10)))
        self.assertEqual(message.event, "agents")


class OffSlots(unittest.TestCase):
    def test_off_slots_and_no_egress_proxy_are_typed_refusals(self) -> None:
        box = operator()
        for call in (
            lambda: box.memory.put("notes", {"text": "x"}),
            lambda: box.memory.list("notes"),
            lambda: box.memory.search("notes", {"text": "x", "k": 1}),
            lambda: box.memory.get("notes", "m1"),
            lambda: box.memory.delete("notes", "m1"),
            lambda: box.pods.get("a/b.txt"),
            lambda: box.pods.put("a/b.txt", "hello", "text/plain"),
            lambda: box.pods.delete("a/b.txt"),
        ):
            err = refusal(call)
            self.assertEqual((err.code, err.status), ("ABX_ERR_ADAPTER_OFF", 503))
        self.assertEqual(refusal(box.egress.get).code, "ABX_ERR_EGRESS_UNAVAILABLE")
        self.assertEqual(refusal(lambda: box.egress.put({"allow_domains": ["example.org"], "allow_ports": [443]})).status, 503)


class Errors(unittest.TestCase):
    def test_errors_carry_the_api_code_status_message_and_request_id(self) -> None:
        box = operator()
        missing = refusal(lambda: box.agents.get("no-such-agent"))
        self.assertEqual((missing.code, missing.status), ("ABX_ERR_NOT_FOUND", 404))
        self.assertIn("no-such-agent", missing.message)
        self.assertTrue(missing.request_id)
        invalid = refusal(lambda: box.beads.create({"title": ""}))
        self.assertEqual((invalid.code, invalid.status), ("ABX_ERR_VALIDATION", 400))
        self.assertEqual(refusal(Agentbox(box_url()).meta).code, "ABX_ERR_AUTH_REQUIRED")
        wrong = refusal(Agentbox(box_url(), ApiKey("wrong")).meta)
        self.assertEqual((wrong.code, wrong.status), ("ABX_ERR_AUTH_INVALID", 401))
        generic = refusal(lambda: box.call("GET /v1/agents/{id}", params={"id": "no-such-agent"}))
        self.assertEqual(generic.code, "ABX_ERR_NOT_FOUND", "call() by route key raises the same")


class Nostr(unittest.TestCase):
    def test_nip98_signs_each_request_with_its_url_method_and_payload(self) -> None:
        seen: list[dict[str, object]] = []
        box = Agentbox(box_url(), Nip98(node_signer(env("AGENTBOX_TEST_NOSTR_SECRET"), seen)))
        self.assertIsInstance(box.meta().get("version"), str, "a GET")
        self.assertEqual(box.events.append({"kind": "python.nip98", "data": {}})["event"].get("kind"), "python.nip98", "a POST")
        tags = dict((t[0], t[1]) for t in seen[1]["tags"])  # type: ignore[union-attr]
        self.assertEqual((tags["u"], tags["method"]), (f"{box_url()}/v1/events", "POST"))
        self.assertRegex(tags["payload"], "^[0-9a-f]{64}$")
        stranger = Agentbox(box_url(), Nip98(node_signer("11" * 32)))
        self.assertEqual(refusal(stranger.meta).code, "ABX_ERR_AUTH_INVALID", "a key not in mesh.operator_pubkeys")


if __name__ == "__main__":
    unittest.main()
