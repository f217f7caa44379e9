"""A real zkfence-server deployment for the tests: one ZooKeeper server and two replicas, each a
JVM of its own started from the server module's class path (clients/testing/server-classpath),
so that a replica can be paused (SIGSTOP), resumed and stopped (SIGTERM) like a pod."""

import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from support import REPO, await_true

APP_KEY = "app-key-0123456789abcdef"
OTHER_KEY = "other-key-0123456789abcdef"
OPS_KEY = "ops-key-0123456789abcdef"
JVM = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m"]
LISTENING = re.compile(r"zkfence-server: listening \(HTTP\) on [^ ]*:(\d+),")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _orphan_guard() -> List[str]:
    """A prefix that kills the child when this process dies (no JVM outlives a killed test run)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--"] if setpriv else []


def spawn(argv: List[str], log: str, **kw: Any) -> subprocess.Popen:
    """Starts ``argv`` with its output appended to the file ``log``."""
    with open(log, "ab") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, **kw)


def _java_and_classpath() -> Tuple[str, str]:
    out = subprocess.run([str(REPO / "clients" / "testing" / "server-classpath")], check=True,
                         stdout=subprocess.PIPE, text=True).stdout.splitlines()
    return out[0], out[1]


class Replica:
    def __init__(self, cluster: "Cluster", name: str):
        self.cluster = cluster
        self.name = name
        self.proc: Optional[subprocess.Popen] = None
        self.port = 0
        self.starts = 0
        self.log = ""

    @property
    def url(self) -> str:
        return "http://127.0.0.1:%d" % self.port

    def start(self) -> None:
        self.starts += 1
        self.log = os.path.join(self.cluster.dir, "replica-%s-%d.log" % (self.name, self.starts))
        # No warm-up: the scenarios restart replicas often, and a replica's first slow calls are no
        # behaviour of the client's (the warm-up has its own test, WarmUpTest). A lag bound of 0: the
        # suites' ZooKeeper is one standalone server, with no follower to fall behind a leader.
        self.proc = spawn(
            _orphan_guard() + [self.cluster.java] + JVM + ["-cp", self.cluster.classpath,
                                                           "io.zkfence.server.ServerCommand", "--zookeeper",
                                                           self.cluster.zookeeper, "--port", "0", "--api-keys",
                                                           self.cluster.keys, "--warm-up-cycles", "0",
                                                           "--zookeeper-lag-bound-ms", "0"],
            self.log)

    def await_listening(self) -> None:
        def port() -> Optional[int]:
            with open(self.log, errors="replace") as f:
                log = f.read()
            if self.proc.poll() is not None:
                raise RuntimeError("replica %s exited with %s; its log:\n%s" % (self.name, self.proc.returncode, log))
            found = LISTENING.findall(log)
            return int(found[-1]) if found else None
        self.port = await_true("replica %s listening" % self.name, port, timeout=120)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def pause(self) -> None:
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)

    def terminate(self) -> int:
        """SIGTERM, as Kubernetes stops a pod; returns the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(60)

    def kill(self) -> None:
        if self.alive():
            self.resume()
            self.proc.kill()
            self.proc.wait(30)


class Cluster:
    """ZooKeeper + replicas A and B; one per test process (``Cluster.shared()``)."""

    _shared: Optional["Cluster"] = None
    _failed: Optional[BaseException] = None
    _lock = threading.Lock()

    @classmethod
    def shared(cls) -> "Cluster":
        with cls._lock:
            if cls._failed is not None:
                raise AssertionError("the test cluster could not start: %s" % cls._failed)
            if cls._shared is None:
                cluster = cls()
                atexit.register(cluster.stop)
                try:
                    cluster.start()
                except BaseException as e:
                    cls._failed = e
                    cluster.stop()
                    raise
                cls._shared = cluster
            cls._shared.ensure_running()
            return cls._shared

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="zkfence-clients-")
        self.java, self.classpath = _java_and_classpath()
        self.keys = os.path.join(self.dir, "keys.json")
        with open(self.keys, "w") as f:
            json.dump({"keys": [{"name": "app", "key": APP_KEY, "namespaces": ["conf", "inventory-service"]},
                                {"name": "other", "key": OTHER_KEY, "namespaces": ["elsewhere"]},
                                {"name": "ops", "key": OPS_KEY, "admin": True}]}, f)
        self.zk_port = free_port()
        self.zookeeper = "127.0.0.1:%d" % self.zk_port
        self.zk: Optional[subprocess.Popen] = None
        self.a = Replica(self, "A")
        self.b = Replica(self, "B")
        self.v2 = False

    def start(self) -> None:
        self.zk = spawn(
            _orphan_guard() + [self.java] + JVM + ["-Dzookeeper.admin.enableServer=false",
                                                   "-Dzookeeper.4lw.commands.whitelist=ruok", "-cp", self.classpath,
                                                   "org.apache.zookeeper.server.ZooKeeperServerMain",
                                                   str(self.zk_port), os.path.join(self.dir, "zk-data")],
            os.path.join(self.dir, "zookeeper.log"))

        def zk_serves() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", self.zk_port), timeout=1) as s:
                    s.sendall(b"ruok")
                    return s.recv(4) == b"imok"
            except OSError:
                return False
        await_true("ZooKeeper serving on %s (log: %s)" % (self.zookeeper, os.path.join(self.dir, "zookeeper.log")),
                   zk_serves, timeout=120)
        for r in (self.a, self.b):
            r.start()
        for r in (self.a, self.b):
            r.await_listening()
        status, grant = self.http("POST", "conf:probe-%d" % os.getpid(), "/acquire",
                                  {"ownerId": "probe", "ttlMillis": 1000})
        assert status == 200, grant
        self.v2 = "validForMillis" in grant
        self.http("POST", "conf:probe-%d" % os.getpid(), "/release",
                  {"ownerId": "probe", "lockToken": grant["lockToken"]})

    def ensure_running(self) -> None:
        """Replicas a scenario paused are resumed, stopped ones started again (on a new port)."""
        for r in (self.a, self.b):
            if r.alive():
                r.resume()
            else:
                r.start()
                r.await_listening()

    def stop(self) -> None:
        for r in (self.a, self.b):
            r.kill()
        if self.zk is not None and self.zk.poll() is None:
            self.zk.kill()
            self.zk.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- raw HTTP, for what the tests do beside the client (status, force-release) --------------

    def http(self, method: str, key: str, suffix: str = "", body: Optional[Dict[str, Any]] = None,
             api_key: str = APP_KEY, replica: Optional[Replica] = None) -> Tuple[int, Dict[str, Any]]:
        url = (replica or self.b).url + "/v1/locks/" + urllib.parse.quote(key, safe="") + suffix
        req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + api_key})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)

    def status(self, key: str) -> Dict[str, Any]:
        return self.http("GET", key)[1]

    def waiters(self, key: str) -> List[str]:
        return [w["ownerId"] for w in self.status(key).get("waiters", [])]
