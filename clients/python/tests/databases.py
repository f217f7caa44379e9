"""The databases the fence scenarios run on: a real PostgreSQL server started from the machine's
PostgreSQL packages (initdb + postgres in a temporary folder, on a random port; as the unprivileged
'postgres' user when the tests run as root, which PostgreSQL refuses), driven through Debian's
psycopg2; and SQLite from the standard library."""

import atexit
import glob
import os
import pwd
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import uuid
import warnings
from typing import Any, List, Optional

from cluster import _orphan_guard, free_port, spawn
from support import await_true

# pg8000 1.10 (Debian bookworm) compares versions with distutils; not this suite's concern.
warnings.filterwarnings("ignore", category=DeprecationWarning, module="pg8000")


def _pg_bindir() -> str:
    if os.environ.get("ZKFENCE_TEST_PG_BINDIR"):
        return os.environ["ZKFENCE_TEST_PG_BINDIR"]
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    if found:
        return os.path.dirname(found[-1])
    postgres = shutil.which("postgres")
    if postgres:
        return os.path.dirname(postgres)
    raise AssertionError("no PostgreSQL server found (install Debian's 'postgresql' package, as .ci/run does, or "
                         "set ZKFENCE_TEST_PG_BINDIR)")


class PostgresServer:
    _shared: Optional["PostgresServer"] = None
    _lock = threading.Lock()

    @classmethod
    def shared(cls) -> "PostgresServer":
        with cls._lock:
            if cls._shared is None:
                server = cls()
                atexit.register(server.stop)
                server.start()
                cls._shared = server
            return cls._shared

    def __init__(self) -> None:
        try:
            import pg8000  # noqa: F401  (Debian's python3-pg8000, for /usr/bin/python3)
            import psycopg  # noqa: F401  (Debian's python3-psycopg)
            import psycopg2  # noqa: F401  (Debian's python3-psycopg2)
        except ImportError as e:
            raise AssertionError("the PostgreSQL fence tests need psycopg2, psycopg and pg8000 (%s): run them with "
                                 "Debian's /usr/bin/python3 and its python3-psycopg2, python3-psycopg and "
                                 "python3-pg8000 packages (clients/run-tests does; .ci/run installs them)" % e)
        self.bindir = _pg_bindir()
        self.dir = tempfile.mkdtemp(prefix="zkfence-pg-")
        self.port = free_port()
        self.proc: Optional[subprocess.Popen] = None
        self._as: List[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.dir, user.pw_uid, user.pw_gid)
            self._as = ["--reuid=postgres", "--regid=postgres", "--init-groups"]

    def _run_as(self, argv: List[str]) -> List[str]:
        if self._as:
            return ["setpriv"] + self._as + ["--pdeathsig", "KILL", "--"] + argv
        return _orphan_guard() + argv

    def start(self) -> None:
        data = os.path.join(self.dir, "data")
        subprocess.run(self._run_as([os.path.join(self.bindir, "initdb"), "-D", data, "-U", "zkfence",
                                     "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=self.dir)
        self.proc = spawn(
            self._run_as([os.path.join(self.bindir, "postgres"), "-D", data, "-p", str(self.port), "-k", self.dir,
                          "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=40"]),
            os.path.join(self.dir, "postgres.log"), cwd=self.dir)

        def accepts() -> bool:
            if self.proc.poll() is not None:
                with open(os.path.join(self.dir, "postgres.log")) as f:
                    raise AssertionError("postgres exited: " + f.read())
            try:
                self.connect().close()
                return True
            except Exception:
                return False
        await_true("PostgreSQL accepting connections on port %d" % self.port, accepts, timeout=60)

    def connect(self, autocommit: bool = False, driver: str = "psycopg2") -> Any:
        """A connection through Debian's psycopg2, psycopg (3) or pg8000."""
        if driver == "psycopg2":
            import psycopg2
            conn = psycopg2.connect(host="127.0.0.1", port=self.port, user="zkfence", dbname="postgres")
        elif driver == "psycopg":
            import psycopg
            conn = psycopg.connect(host="127.0.0.1", port=self.port, user="zkfence", dbname="postgres")
        elif driver == "pg8000":
            import pg8000
            conn = pg8000.connect(host="127.0.0.1", port=self.port, user="zkfence", database="postgres")
        else:
            raise AssertionError("unknown driver %r" % driver)
        conn.autocommit = autocommit
        return conn

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class Database:
    """One engine as the fence scenarios see it: connections, a business table, lock waits."""

    name = ""

    def connect(self, autocommit: bool = False, busy_timeout: Optional[float] = None) -> Any:
        raise NotImplementedError

    def new_table(self) -> str:
        """A fresh business table (k TEXT PRIMARY KEY, v TEXT); returns its name."""
        table = "biz_" + uuid.uuid4().hex[:10]
        conn = self.connect()
        conn.cursor().execute("CREATE TABLE %s (k VARCHAR(255) PRIMARY KEY, v VARCHAR(255))" % table)
        conn.commit()
        conn.close()
        return table

    def value(self, table: str, k: str) -> Optional[str]:
        conn = self.connect()
        cur = conn.cursor()
        cur.execute("SELECT v FROM %s WHERE k = %s" % (table, self.placeholder), (k,))
        row = cur.fetchone()
        conn.close()
        return None if row is None else row[0]

    def upsert(self, conn: Any, table: str, k: str, v: str) -> None:
        conn.cursor().execute("INSERT INTO %s (k, v) VALUES (%s, %s) ON CONFLICT (k) DO UPDATE SET v = excluded.v"
                              % (table, self.placeholder, self.placeholder), (k, v))

    placeholder = "?"


#: The PostgreSQL drivers every fence scenario runs with (Debian's python3-psycopg2,
#: python3-psycopg and python3-pg8000, for /usr/bin/python3).
DRIVERS = ("psycopg2", "psycopg", "pg8000")


class Postgres(Database):
    name = "postgres"
    placeholder = "%s"

    def __init__(self, driver: str = "psycopg2") -> None:
        self.server = PostgresServer.shared()
        self.driver = driver
        self.name = "postgres-" + driver

    def connect(self, autocommit: bool = False, busy_timeout: Optional[float] = None) -> Any:
        return self.server.connect(autocommit, self.driver)

    @staticmethod
    def backend_pid(conn: Any) -> int:
        """The server process of ``conn`` (asked before it is handed to another thread)."""
        cur = conn.cursor()
        cur.execute("SELECT pg_backend_pid()")
        pid = cur.fetchone()[0]
        conn.rollback()
        return pid

    def waits_for_lock(self, pid: int) -> bool:
        """True when the session with server process ``pid`` waits for a lock (pg_stat_activity)."""
        probe = self.server.connect(autocommit=True)
        try:
            cur = probe.cursor()
            cur.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,))
            row = cur.fetchone()
            return row is not None and row[0] == "Lock"
        finally:
            probe.close()


class Sqlite(Database):
    name = "sqlite"

    def __init__(self) -> None:
        self.path = os.path.join(tempfile.mkdtemp(prefix="zkfence-sqlite-"), "fence.db")
        atexit.register(shutil.rmtree, os.path.dirname(self.path), True)

    def connect(self, autocommit: bool = False, busy_timeout: Optional[float] = None) -> Any:
        return sqlite3.connect(self.path, timeout=5.0 if busy_timeout is None else busy_timeout,
                               isolation_level=None if autocommit else "", check_same_thread=False)
