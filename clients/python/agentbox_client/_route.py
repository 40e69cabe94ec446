"""Marks each client method with the routes it calls, so a test can check that every route of the API has one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ._routes import RouteKey

F = TypeVar("F", bound=Callable[..., Any])

ATTRIBUTE = "__agentbox_routes__"


def route(*keys: RouteKey) -> Callable[[F], F]:
    """Note on a method the route keys ("METHOD /path/{param}") it calls."""

    def mark(fn: F) -> F:
        setattr(fn, ATTRIBUTE, keys)
        return fn

    return mark


def routes_of(obj: object) -> dict[str, tuple[str, ...]]:
    """Each marked method of `obj` (by name) with its route keys."""
    found: dict[str, tuple[str, ...]] = {}
    for name in dir(type(obj)):
        keys = getattr(getattr(type(obj), name), ATTRIBUTE, None)
        if keys:
            found[name] = keys
    return found
