"""One test per scenario of clients/conformance.json (the implementations are in scenarios_*.py)."""

import unittest
from typing import Any, Callable, Dict

import scenarios_batch  # noqa: F401  (registers its scenarios)
import scenarios_fence
import scenarios_scripted
import scenarios_service
from conformance import IDS, IMPLEMENTATIONS, SCENARIOS, V2_SKIP, attach
from databases import DRIVERS, Postgres, Sqlite


def _gate(case: unittest.TestCase, s: Dict[str, Any]) -> None:
    if s.get("needs") == "service-v2" and not case.cluster.v2:
        case.skipTest(V2_SKIP)


def _run_plain(case: unittest.TestCase, s: Dict[str, Any], fn: Callable[..., None], options: Dict[str, Any]) -> None:
    _gate(case, s)
    fn(case)


def _run_per_database(case: unittest.TestCase, s: Dict[str, Any], fn: Callable[..., None],
                      options: Dict[str, Any]) -> None:
    for name in options.get("databases", ("sqlite", "postgres")):
        for db in [Sqlite()] if name == "sqlite" else [Postgres(driver) for driver in DRIVERS]:
            with case.subTest(database=db.name):
                fn(case, db)


class ServiceScenarios(scenarios_service.ServiceCase):
    pass


class ScriptedScenarios(scenarios_scripted.ScriptedCase):
    pass


class FenceScenarios(scenarios_fence.FenceCase):
    pass


attach(ServiceScenarios, "service", _run_plain)
attach(ScriptedScenarios, "scripted", _run_plain)
attach(FenceScenarios, "fence", _run_per_database)


class ConformanceListTest(unittest.TestCase):

    def test_every_implementation_names_a_scenario_and_every_scenario_has_a_kind(self) -> None:
        self.assertEqual(set(IMPLEMENTATIONS) - IDS, set())
        self.assertEqual({s["against"] for s in SCENARIOS}, {"service", "scripted", "fence"})
        self.assertEqual(len(IDS), len(SCENARIOS), "scenario ids are unique")

    def test_every_scenario_without_a_skip_reason_is_implemented_here(self) -> None:
        missing = [s["id"] for s in SCENARIOS if s["id"] not in IMPLEMENTATIONS]
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
