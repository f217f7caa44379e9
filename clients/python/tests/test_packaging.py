"""The package as a user gets it: a wheel built from this folder, installed into a fresh virtual
environment of the oldest supported Python found here (3.9) and of this one, runs the quickstart
against the real replicas."""

import glob
import os
import subprocess
import sys
import tempfile
import unittest
from typing import List

from cluster import APP_KEY, Cluster
from support import PACKAGE_ROOT


def _oldest_supported() -> List[str]:
    """Python 3.9 interpreters on this machine (ZKFENCE_TEST_PYTHONS, colon-separated, overrides)."""
    if os.environ.get("ZKFENCE_TEST_PYTHONS"):
        return os.environ["ZKFENCE_TEST_PYTHONS"].split(":")
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    return sorted(glob.glob("/usr/bin/python3.9") + glob.glob(os.path.join(pyenv, "versions", "3.9*", "bin",
                                                                           "python3.9")))[:1]


class WheelTest(unittest.TestCase):

    def test_the_wheel_installs_into_a_fresh_virtual_environment_and_its_quickstart_runs(self) -> None:
        cluster = Cluster.shared()
        with tempfile.TemporaryDirectory(prefix="zkfence-wheel-") as d:
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-q", str(PACKAGE_ROOT), "-w", os.path.join(d, "dist")], check=True)
            wheels = glob.glob(os.path.join(d, "dist", "zkfence-*-py3-none-any.whl"))
            self.assertEqual(len(wheels), 1, wheels)
            oldest = _oldest_supported()
            for python in oldest + [sys.executable]:
                with self.subTest(python=python):
                    self._quickstart(python, wheels[0], os.path.join(d, "venv-%d" % len(os.listdir(d))), cluster)
            if not oldest:
                self.skipTest("no Python 3.9 found here (ZKFENCE_TEST_PYTHONS): the wheel ran on %s only"
                              % sys.version.split()[0])

    def _quickstart(self, python: str, wheel: str, venv: str, cluster: Cluster) -> None:
        subprocess.run([python, "-m", "venv", venv], check=True)
        bin_python = os.path.join(venv, "bin", "python")
        env = dict(os.environ, ZKFENCE_API_KEY=APP_KEY)
        env.pop("PYTHONPATH", None)  # the installed package, not this folder's source
        subprocess.run([bin_python, "-m", "pip", "install", "-q", "--no-index", wheel], check=True, env=env)
        where = subprocess.run([bin_python, "-c", "import zkfence; print(zkfence.__file__)"], check=True,
                               stdout=subprocess.PIPE, text=True, cwd=venv, env=env).stdout
        self.assertTrue(where.startswith(venv), where)
        run = subprocess.run([bin_python, str(PACKAGE_ROOT / "examples" / "quickstart.py"), cluster.a.url,
                              cluster.b.url], env=env, cwd=venv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertRegex(run.stdout, r"reserved sku 123 with fencing token \d+")
