"""The generated table against the client: every route has a method, every method's route exists, every hint resolves."""

from __future__ import annotations

import inspect
import typing
import unittest
from typing import get_args

import agentbox_client
from agentbox_client import ERROR_CODES, ROUTES, Agentbox, ErrorCode, RouteKey, routes_of


def groups(box: Agentbox) -> dict[str, object]:
    """The client and each of its route groups, by attribute name."""
    found: dict[str, object] = {"": box}
    found.update({name: value for name, value in vars(box).items() if not name.startswith("_")})
    return found


def methods_by_route(box: Agentbox) -> dict[str, list[str]]:
    """Each route key with the methods ("agents.spawn") that call it."""
    out: dict[str, list[str]] = {}
    for group_name, group in groups(box).items():
        for method, keys in routes_of(group).items():
            for key in keys:
                out.setdefault(key, []).append(f"{group_name}.{method}".lstrip("."))
    return out


def uncovered(box: Agentbox, routes: typing.Iterable[str]) -> list[str]:
    """The route keys no method of the client calls."""
    covered = methods_by_route(box)
    return sorted(k for k in routes if k not in covered)


class RouteTable(unittest.TestCase):
    box = Agentbox("http://127.0.0.1:9")

    def test_every_route_has_a_method(self) -> None:
        self.assertEqual(uncovered(self.box, ROUTES), [], "a new route needs a method marked @route(key) on Agentbox or a group")

    def test_the_check_sees_a_route_without_a_method(self) -> None:
        self.assertEqual(uncovered(self.box, [*ROUTES, "GET /v1/not-yet"]), ["GET /v1/not-yet"])

    def test_every_marked_route_exists(self) -> None:
        stale = {key: where for key, where in methods_by_route(self.box).items() if key not in ROUTES}
        self.assertEqual(stale, {}, "a method names a route the API no longer has")

    def test_the_table_and_its_literal_types_agree(self) -> None:
        self.assertEqual(list(get_args(RouteKey)), list(ROUTES))
        self.assertEqual(list(get_args(ErrorCode)), list(ERROR_CODES))
        for key, route in ROUTES.items():
            self.assertEqual(key, f"{route.method} {route.path}")
        self.assertEqual(ERROR_CODES["ABX_ERR_NOT_FOUND"][0], 404)

    def test_every_type_hint_resolves(self) -> None:
        # No type checker is installed here: resolving every annotation at least catches a name
        # that does not exist or a generated type a method refers to that was renamed.
        checked = 0
        for group in groups(self.box).values():
            for name, member in inspect.getmembers(type(group), inspect.isfunction):
                if not name.startswith("_") or name == "__init__":
                    typing.get_type_hints(member)
                    checked += 1
        self.assertGreater(checked, 40)
        for name in agentbox_client.__all__:
            self.assertTrue(hasattr(agentbox_client, name), name)


if __name__ == "__main__":
    unittest.main()
