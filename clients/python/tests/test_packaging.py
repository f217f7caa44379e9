"""The package as a user gets it. Built with a standard backend (setuptools, through Debian's
python3-build, offline and without isolation) into an sdist and a wheel; the sdist installed with
pip into a fresh virtual environment of the oldest Python the package claims (3.9), with pip's
build isolation on, as a user's pip would install it from PyPI; the wheel into one of this Python.
Each environment runs the quickstarts (blocking, asyncio, cancellation) against the real replicas.

pip's isolated build takes setuptools and wheel from a local folder instead of PyPI: the upstream
setuptools wheel that CPython's ensurepip carries (pyenv's 3.10/3.11: Debian's own setuptools wheel
is patched for Debian's Python and fails on others) and Debian's python3-wheel-whl."""

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from cluster import APP_KEY, Cluster
from support import PACKAGE_ROOT, PATIENCE, REPO, await_true

OLDEST = "3.9"


def _oldest_supported() -> str:
    """A Python 3.9 here (ZKFENCE_TEST_PYTHON39 overrides): pyenv's, or /usr/bin/python3.9."""
    if os.environ.get("ZKFENCE_TEST_PYTHON39"):
        return os.environ["ZKFENCE_TEST_PYTHON39"]
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(glob.glob("/usr/bin/python3.9") + glob.glob(os.path.join(pyenv, "versions", "3.9*", "bin",
                                                                             "python3.9")))
    if not found:
        raise AssertionError("no Python 3.9 here, the oldest the package claims (requires-python >=3.9): install one "
                             "(pyenv install 3.9) or point ZKFENCE_TEST_PYTHON39 at one")
    return found[-1]


def _wheelhouse(into: str) -> str:
    """setuptools and wheel as pip would fetch them from PyPI, from this machine's own copies."""
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    setuptools = sorted(glob.glob(os.path.join(pyenv, "versions", "3.1[01]*", "lib", "python3.1[01]", "ensurepip",
                                               "_bundled", "setuptools-6[1-9]*.whl")))
    wheel = sorted(glob.glob("/usr/share/python-wheels/wheel-*.whl"))
    if not setuptools or not wheel:
        raise AssertionError("no setuptools >= 61 wheel (CPython 3.10/3.11's ensurepip) or wheel wheel (Debian's "
                             "python3-wheel-whl) to install the sdist with offline")
    os.makedirs(into)
    for w in (setuptools[-1], wheel[-1]):
        shutil.copy(w, into)
    return into


class PackageTest(unittest.TestCase):

    def test_the_sdist_installs_on_the_oldest_python_claimed_and_the_wheel_on_this_one_and_the_quickstarts_run(self):
        cluster = Cluster.shared()
        with tempfile.TemporaryDirectory(prefix="zkfence-package-") as d:
            source = os.path.join(d, "source")  # a copy: the build writes its egg-info beside the sources
            shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "build", "dist",
                                                                                "*.egg-info", "tests"))
            subprocess.run(["/usr/bin/python3", "-m", "build", "--no-isolation", "--sdist", "--wheel", "-o",
                            os.path.join(d, "dist"), source], check=True, stdout=subprocess.DEVNULL)
            sdists = glob.glob(os.path.join(d, "dist", "zkfence-*.tar.gz"))
            wheels = glob.glob(os.path.join(d, "dist", "zkfence-*-py3-none-any.whl"))
            self.assertEqual((len(sdists), len(wheels)), (1, 1), os.listdir(os.path.join(d, "dist")))
            self._contents(sdists[0], wheels[0])
            oldest = _oldest_supported()
            version = subprocess.run([oldest, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                     check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
            self.assertEqual(version, OLDEST)
            links = _wheelhouse(os.path.join(d, "wheelhouse"))
            for python, artifact in [(oldest, sdists[0]), (sys.executable, wheels[0])]:
                with self.subTest(python=python, artifact=os.path.basename(artifact)):
                    venv = os.path.join(d, "venv-%s" % os.path.basename(artifact))
                    self._install(python, artifact, venv, links)
                    self._quickstarts(os.path.join(venv, "bin", "python"), venv, cluster)

    def _contents(self, sdist: str, wheel: str) -> None:
        listing = subprocess.run(["tar", "tzf", sdist], check=True, stdout=subprocess.PIPE, text=True).stdout
        for member in ("LICENSE", "pyproject.toml", "src/zkfence/aio.py", "src/zkfence/sql/postgres/fence_advance.sql",
                       "src/zkfence/py.typed"):
            self.assertIn("/" + member, listing)
        import zipfile
        names = zipfile.ZipFile(wheel).namelist()
        self.assertTrue(any(n.endswith(".dist-info/LICENSE") for n in names), names)
        self.assertIn("zkfence/sql/sqlite/fence_advance.sql", names)
        with open(REPO / "LICENSE", "rb") as repo_license, open(PACKAGE_ROOT / "LICENSE", "rb") as package_license:
            self.assertEqual(package_license.read(), repo_license.read(), "the package's LICENSE is the repository's")

    def _install(self, python: str, artifact: str, venv: str, links: str) -> None:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        subprocess.run([python, "-m", "venv", venv], check=True, env=env)
        subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", "--no-index",
                        "--find-links", links, artifact], check=True, env=env)

    def _run(self, python: str, venv: str, script: str, cluster: Cluster, **kw) -> subprocess.Popen:
        env = dict(os.environ, ZKFENCE_API_KEY=APP_KEY)
        env.pop("PYTHONPATH", None)  # the installed package, not this folder's source
        return subprocess.Popen([python, str(PACKAGE_ROOT / "examples" / script), cluster.a.url, cluster.b.url],
                                env=env, cwd=venv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)

    def _quickstarts(self, python: str, venv: str, cluster: Cluster) -> None:
        where = subprocess.run([python, "-c", "import zkfence; print(zkfence.__file__)"], check=True, cwd=venv,
                               stdout=subprocess.PIPE, text=True, env={"PATH": os.environ["PATH"]}).stdout
        self.assertTrue(where.startswith(venv), where)
        for script in ("quickstart.py", "quickstart_asyncio.py"):
            run = self._run(python, venv, script, cluster)
            out, _ = run.communicate(timeout=120)
            self.assertEqual(run.returncode, 0, out)
            self.assertRegex(out, r"reserved sku 123 with fencing token \d+")
        # cancel.py waits behind a holder, and stops waiting on SIGTERM: its place in the queue goes.
        key = "inventory-service:nightly-report"
        status, grant = cluster.http("POST", key, "/acquire", {"ownerId": "holder", "ttlMillis": 60000})
        self.assertEqual(status, 200, grant)
        try:
            waiting = self._run(python, venv, "cancel.py", cluster)
            await_true("cancel.py waits", lambda: waiting.poll() is None and len(cluster.waiters(key)) == 1
                       or (waiting.poll() is not None and self.fail("cancel.py ended: %s" % waiting.stdout.read())))
            waiting.send_signal(signal.SIGTERM)
            began = time.monotonic()
            out, _ = waiting.communicate(timeout=PATIENCE)
            self.assertLess(time.monotonic() - began, 10)
            self.assertEqual(waiting.returncode, 0, out)
            self.assertIn("gave up waiting", out)
            await_true("its place in the queue is gone", lambda: cluster.waiters(key) == [])
        finally:
            cluster.http("POST", key, "/release", {"ownerId": "holder", "lockToken": grant["lockToken"]})
