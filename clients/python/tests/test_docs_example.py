"""The Python example of docs/user/clients.md, run as written against the box."""

from __future__ import annotations

import contextlib
import io
import os
import re
import unittest

from .support import env


def python_example() -> str:
    """The first python block of the document's Python section."""
    with open(os.path.join(env("AGENTBOX_REPO"), "docs/user/clients.md"), encoding="utf-8") as f:
        doc = f.read()
    section = re.search(r"^## Python.*?(?=^## )", doc, re.S | re.M)
    block = re.search(r"^```python\n(.*?)^```", section.group(0) if section else "", re.S | re.M)
    if not block:
        raise AssertionError("docs/user/clients.md has no python block in its Python section")
    return block.group(1)


class DocsExample(unittest.TestCase):
    def test_the_example_runs_and_prints_what_it_says(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(python_example(), "docs/user/clients.md", "exec"), {"__name__": "example"})
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[:2], ["hello", "ended exited 0"])
        self.assertRegex(lines[2], r"^ABX_ERR_NOT_FOUND 404 ")


if __name__ == "__main__":
    unittest.main()
