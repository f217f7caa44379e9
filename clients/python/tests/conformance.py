"""clients/conformance.json, the scenarios every client passes, and this suite's implementations
of them: ``@scenario(id)`` registers one; ``attach`` makes one test per scenario of a kind, which
fails when the scenario has no implementation here."""

import json
import unittest
from typing import Any, Callable, Dict, List, Tuple

from support import CONFORMANCE

SCENARIOS: List[Dict[str, Any]] = json.loads(CONFORMANCE.read_text("utf-8"))["scenarios"]
IDS = {s["id"] for s in SCENARIOS}
IMPLEMENTATIONS: Dict[str, Tuple[Callable[..., None], Dict[str, Any]]] = {}

V2_SKIP = "needs the redesigned service (issue 29)"


def scenario(scenario_id: str, **options: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    if scenario_id not in IDS:
        raise AssertionError("no scenario %r in %s" % (scenario_id, CONFORMANCE))

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        if scenario_id in IMPLEMENTATIONS:
            raise AssertionError("scenario %r implemented twice" % scenario_id)
        IMPLEMENTATIONS[scenario_id] = (fn, options)
        return fn
    return register


def attach(cls: type, against: str, run: Callable[[unittest.TestCase, Dict[str, Any], Callable[..., None],
                                                      Dict[str, Any]], None]) -> type:
    """Adds ``test_<id>`` to ``cls`` for every scenario ``against`` this kind of fixture."""
    for s in SCENARIOS:
        if s["against"] != against:
            continue

        def test(self: unittest.TestCase, s: Dict[str, Any] = s) -> None:
            if s["id"] not in IMPLEMENTATIONS:
                self.fail("conformance scenario %r has no implementation in the Python suite" % s["id"])
            fn, options = IMPLEMENTATIONS[s["id"]]
            run(self, s, fn, options)

        test.__name__ = "test_" + s["id"].replace("-", "_")
        test.__doc__ = s["id"] + ": " + s["title"]
        setattr(cls, test.__name__, test)
    return cls
