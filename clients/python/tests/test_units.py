"""What needs no server: the clock's suspend detection and drift margin, the logger's handler,
the drivers' SQLSTATE."""

import logging
import unittest

import support  # noqa: F401  (first: puts the package's source on the path)
import zkfence
from zkfence import _clock
from zkfence.fence import _sqlstate


class ClockTest(unittest.TestCase):

    def test_a_forward_jump_of_the_wall_clock_that_the_monotonic_clock_missed_counts_as_elapsed(self) -> None:
        mono, wall = [100.0], [5000.0]
        clock = _clock.JumpDetectingClock(lambda: mono[0], lambda: wall[0])
        self.assertEqual(clock(), 100.0)
        mono[0], wall[0] = 101.0, 5001.0  # both ran one second
        self.assertEqual(clock(), 101.0)
        mono[0], wall[0] = 101.5, 5031.5  # suspended 30 s: the monotonic clock saw 0.5 s of it
        self.assertAlmostEqual(clock(), 131.5)
        mono[0], wall[0] = 102.5, 5032.5
        self.assertAlmostEqual(clock(), 132.5)

    def test_a_backward_step_or_a_small_drift_of_the_wall_clock_changes_nothing(self) -> None:
        mono, wall = [10.0], [1000.0]
        clock = _clock.JumpDetectingClock(lambda: mono[0], lambda: wall[0])
        mono[0], wall[0] = 20.0, 900.0  # wall clock set back
        self.assertEqual(clock(), 20.0)
        mono[0], wall[0] = 30.0, 910.1  # 10 ms/s of drift: under the threshold
        self.assertEqual(clock(), 30.0)

    def test_linux_counts_on_clock_boottime(self) -> None:
        self.assertEqual(_clock.KIND, "CLOCK_BOOTTIME")

    def test_the_drift_margin_is_redlocks(self) -> None:
        self.assertAlmostEqual(_clock.usable(10.0), 10.0 - 0.1 - 0.002)
        self.assertEqual(_clock.usable(0.001), 0.0)


class LoggingTest(unittest.TestCase):

    def test_the_package_logger_has_a_null_handler_so_nothing_reaches_the_last_resort_handler(self) -> None:
        self.assertTrue(any(isinstance(h, logging.NullHandler) for h in logging.getLogger("zkfence").handlers))


class SqlStateTest(unittest.TestCase):

    def test_each_drivers_sqlstate_is_read(self) -> None:
        class Psycopg2Error(Exception):
            pgcode = "40001"

        class PsycopgError(Exception):
            sqlstate = "40P01"
        new_pg8000 = Exception({"S": "ERROR", "C": "55P03", "M": "lock timeout"})
        old_pg8000 = type("ProgrammingError", (Exception,), {"__module__": "pg8000.core"})(
            "ERROR", "ERROR", "42P01", 'relation "x" does not exist')
        self.assertEqual([_sqlstate(e) for e in (Psycopg2Error(), PsycopgError(), new_pg8000, old_pg8000)],
                         ["40001", "40P01", "55P03", "42P01"])
        self.assertIsNone(_sqlstate(ValueError("no code")))

    def test_the_version_is_the_packages(self) -> None:
        self.assertRegex(zkfence.__version__, r"^\d+\.\d+\.\d+")
