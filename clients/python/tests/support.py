"""What the client tests share: the package on the path, the repository's paths, a poll loop."""

import os
import pathlib
import sys
import time
from typing import Callable, Optional, TypeVar

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE_ROOT = HERE.parent
REPO = PACKAGE_ROOT.parent.parent
CONFORMANCE = REPO / "clients" / "conformance.json"

if str(PACKAGE_ROOT / "src") not in sys.path:
    sys.path.insert(0, str(PACKAGE_ROOT / "src"))

T = TypeVar("T")

#: How long a condition may take to come true on a loaded 2-core machine before a test fails.
PATIENCE = float(os.environ.get("ZKFENCE_TEST_PATIENCE", "30"))


def await_true(what: str, condition: Callable[[], Optional[T]], timeout: float = PATIENCE,
               every: float = 0.05) -> T:
    """Polls ``condition`` until it returns something truthy (which is returned), or fails
    naming ``what`` after ``timeout`` seconds (Awaitility's loop, not a sleep)."""
    end = time.monotonic() + timeout
    last_error: Optional[BaseException] = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except AssertionError as e:
            last_error = e
        if time.monotonic() >= end:
            raise AssertionError("not true within %.0f s: %s%s" % (timeout, what,
                                                                  "; last: %s" % last_error if last_error else ""))
        time.sleep(every)
