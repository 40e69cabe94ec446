"""Agents and their workspace files on a real box: spawn, follow, terminate, exec, files, and an agent token's scope."""

from __future__ import annotations

import io
import tarfile
import unittest

from agentbox_client import AgentToken, Agentbox, End, Output

from .support import box_url, operator, refusal, token_of


class AgentsOnABox(unittest.TestCase):
    box = operator()

    def test_spawn_follow_output_list_get(self) -> None:
        agent = self.box.agents.spawn({"name": "talker", "command": "/bin/sh", "args": ["-c", "echo one; sleep 0.2; echo two"]})
        self.assertEqual(agent["name"], "talker")
        events = list(self.box.agents.follow(agent["id"]))
        self.assertEqual("".join(e.chunk.get("text", "") for e in events if isinstance(e, Output)), "one\ntwo\n", "follow yields the output as it comes")
        last = events[-1]
        self.assertIsInstance(last, End, "then the record")
        assert isinstance(last, End)
        self.assertEqual((last.agent["id"], last.agent["state"], last.agent.get("exitCode")), (agent["id"], "exited", 0))
        self.assertEqual("".join(c.get("text", "") for c in self.box.agents.output(agent["id"])), "one\ntwo\n", "output after the fact")
        self.assertEqual([c.get("text") for c in self.box.agents.output(agent["id"], after=1)], ["two\n"], "after a chunk")
        self.assertIn(agent["id"], [a.get("id") for a in self.box.agents.list()])
        self.assertEqual(self.box.agents.get(agent["id"])["id"], agent["id"])

    def test_terminate_input_and_exec(self) -> None:
        sleeper = self.box.agents.spawn({"name": "sleeper", "command": "/bin/sleep", "args": ["600"]})
        err = refusal(lambda: self.box.agents.input(sleeper["id"], "x"))
        self.assertEqual((err.code, err.status), ("ABX_ERR_NO_TERMINAL", 409), "a piped agent has no terminal")
        execd = self.box.agents.exec(sleeper["id"], {"command": "/bin/echo", "args": ["inside"]})
        self.assertEqual(execd.get("execOf"), sleeper["id"])
        ended = [e for e in self.box.agents.follow(str(execd["id"])) if isinstance(e, End)]
        self.assertEqual(ended[0].agent.get("exitCode"), 0)
        self.assertEqual("".join(c.get("text", "") for c in self.box.agents.output(str(execd["id"]))), "inside\n")
        final = self.box.agents.terminate(sleeper["id"], grace_ms=100)
        self.assertEqual(final["id"], sleeper["id"])
        self.assertNotIn(final.get("state"), ("starting", "running"))

    def test_an_agent_token_sees_only_its_scope(self) -> None:
        agent = self.box.agents.spawn({"name": "scoped", "command": "/bin/sleep", "args": ["600"]})
        try:
            mine = Agentbox(box_url(), AgentToken(token_of(agent["pid"])))
            self.assertEqual(mine.agents.get(agent["id"])["id"], agent["id"], "its own record")
            err = refusal(mine.agents.list)
            self.assertEqual((err.code, err.status), ("ABX_ERR_AGENT_SCOPE", 403), "not the list")
            self.assertEqual(refusal(mine.events.checkpoint).code, "ABX_ERR_AGENT_SCOPE")
        finally:
            self.box.agents.terminate(agent["id"], grace_ms=100)


class FilesOnABox(unittest.TestCase):
    box = operator()

    def setUp(self) -> None:
        self.agent = self.box.agents.spawn({"name": "files", "command": "/bin/sleep", "args": ["600"]})

    def tearDown(self) -> None:
        self.box.agents.terminate(self.agent["id"], grace_ms=100)

    def test_write_read_list_delete(self) -> None:
        id = self.agent["id"]
        written = self.box.files.write(id, "notes/a.txt", "hello\n", mode="0600")
        self.assertEqual((written.get("created"), written.get("size")), (True, 6))
        read = self.box.files.read(id, "notes/a.txt")
        self.assertEqual((read.status, read.data, read.mode, read.etag), (200, b"hello\n", "0600", written.get("etag")))
        self.assertEqual(self.box.files.read(id, "notes/a.txt", if_none_match=read.etag).status, 304, "unchanged")
        err = refusal(lambda: self.box.files.write(id, "notes/a.txt", b"x", if_none_match="*"))
        self.assertEqual((err.code, err.status), ("ABX_ERR_PRECONDITION_FAILED", 412), "create-only refuses an existing file")
        names = [e.get("name") for e in self.box.files.list(id, "notes").get("entries", [])]
        self.assertEqual(names, ["a.txt"])
        self.assertIn("notes", [e.get("name") for e in self.box.files.list(id).get("entries", [])], "the directory itself")
        self.assertEqual(self.box.files.delete(id, "notes", recursive=True).get("removed"), 2)
        self.assertEqual(refusal(lambda: self.box.files.read(id, "notes/a.txt")).code, "ABX_ERR_NOT_FOUND")
        self.assertEqual(refusal(lambda: self.box.files.read(id, "../escape")).code, "ABX_ERR_FILE_PATH")

    def test_a_name_that_is_not_utf8_is_reached_by_its_bytes(self) -> None:
        id = self.agent["id"]
        # caf\xe9.txt: the box lists its odd byte as the lone surrogate U+DCE9, as os.fsdecode would.
        odd = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
        self.assertEqual(self.box.files.write(id, f"odd/{odd}", "latin-1\n").get("created"), True)
        self.assertEqual([e.get("name") for e in self.box.files.list(id, "odd").get("entries", [])], [odd])
        self.assertEqual(self.box.files.read(id, f"odd/{odd}").data, b"latin-1\n")
        self.assertEqual(refusal(lambda: self.box.files.read(id, "odd/caf\udce8.txt")).code, "ABX_ERR_NOT_FOUND", "other bytes")
        self.assertEqual(self.box.files.delete(id, "odd", recursive=True).get("removed"), 2)

    def test_tar_and_untar(self) -> None:
        id = self.agent["id"]
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            data = b"packed\n"
            info = tarfile.TarInfo("in/b.txt")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        self.assertEqual(self.box.files.untar(id, "unpacked", archive.getvalue()).get("files"), 1)
        self.assertEqual(self.box.files.read(id, "unpacked/in/b.txt").data, b"packed\n")
        with tarfile.open(fileobj=io.BytesIO(self.box.files.tar(id, "unpacked")), mode="r") as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("b.txt"))
            extracted = tar.extractfile(member)
            assert extracted is not None
            self.assertEqual(extracted.read(), b"packed\n")

    def test_snapshots_compared_and_read_without_a_fork(self) -> None:
        id = self.agent["id"]
        self.box.files.write(id, "src/a.py", "one\n")
        first = self.box.snapshots.create(id)["snapshot"]["id"]
        self.box.files.write(id, "src/a.py", "one, changed\n")
        self.box.files.write(id, "src/b.py", "two\n")
        second = self.box.snapshots.create(id)["snapshot"]["id"]
        try:
            diff = self.box.snapshots.diff(second, first)
            self.assertEqual(diff.get("counts"), {"added": 1, "deleted": 0, "modified": 1})
            self.assertEqual([(c.get("change"), c.get("path")) for c in diff.get("changes", [])], [("modified", "src/a.py"), ("added", "src/b.py")])
            cut = self.box.snapshots.diff(second, first, limit=1)
            self.assertEqual((len(cut.get("changes", [])), cut.get("truncated")), (1, True), "cut at the limit")
            rest = self.box.snapshots.diff(second, first, limit=1, cursor=cut.get("nextCursor"))
            self.assertEqual([(c.get("path"), rest.get("truncated")) for c in rest.get("changes", [])], [("src/b.py", False)], "the next page")
            self.assertEqual(self.box.snapshots.warm(first, 1).get("warm", {}).get("wanted"), 1, "a copy built ahead for forks")
            self.assertEqual(self.box.snapshots.warm(first, 0).get("warm", {}).get("wanted"), 0, "and none")
            self.assertEqual([e.get("name") for e in self.box.snapshots.list_files(second, "src").get("entries", [])], ["a.py", "b.py"])
            self.assertIn("src", [e.get("name") for e in self.box.snapshots.list_files(first).get("entries", [])], "the top")
            read = self.box.snapshots.read_file(first, "src/a.py")
            self.assertEqual((read.status, read.data), (200, b"one\n"), "the file as the earlier snapshot holds it")
            self.assertEqual(self.box.snapshots.read_file(first, "src/a.py", if_none_match=read.etag).status, 304)
            self.assertEqual(refusal(lambda: self.box.snapshots.read_file(first, "src/b.py")).code, "ABX_ERR_NOT_FOUND")
            with tarfile.open(fileobj=io.BytesIO(self.box.snapshots.tar(second, "src")), mode="r") as tar:
                self.assertEqual(sorted(m.name for m in tar.getmembers()), ["a.py", "b.py"], "a directory of the snapshot as a tar")
                extracted = tar.extractfile("a.py")
                assert extracted is not None
                self.assertEqual(extracted.read(), b"one, changed\n")
        finally:
            for sid in (first, second):
                self.box.snapshots.delete(sid)


if __name__ == "__main__":
    unittest.main()
