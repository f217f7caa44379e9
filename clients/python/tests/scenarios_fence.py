"""The conformance scenarios of the fence, on PostgreSQL and on SQLite (databases.py)."""

import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List

import support  # noqa: F401  (first: puts the package's source on the path)
import zkfence
from conformance import scenario
from databases import Database, Postgres
from support import PATIENCE, REPO, await_true, PACKAGE_ROOT


class FenceCase(unittest.TestCase):

    def fresh(self, db: Database) -> Any:
        """A connection with the fence table in place, closed after the test."""
        conn = db.connect()
        self.addCleanup(conn.close)
        zkfence.SqlFence().create_if_missing(conn)
        return conn

    @staticmethod
    def key() -> str:
        return "inventory:sku:" + uuid.uuid4().hex[:10]


@scenario("fence-first-write-creates-row")
def first_write(t: FenceCase, db: Database) -> None:
    fence, conn, k, table = zkfence.SqlFence(), t.fresh(db), t.key(), db.new_table()
    fence.in_transaction(conn, k, 7, lambda c: db.upsert(c, table, k, "v7"))
    t.assertEqual(fence.current_token(conn, k), 7)
    t.assertEqual(db.value(table, k), "v7")


@scenario("fence-equal-and-higher-accepted")
def equal_and_higher(t: FenceCase, db: Database) -> None:
    fence, conn, k = zkfence.SqlFence(), t.fresh(db), t.key()
    for token in (5, 5, 9):
        fence.claim(conn, k, token)
    t.assertEqual(fence.current_token(conn, k), 9)


@scenario("fence-lower-rejected-nothing-written")
def lower_rejected(t: FenceCase, db: Database) -> None:
    fence, conn, k, table = zkfence.SqlFence(), t.fresh(db), t.key(), db.new_table()
    fence.in_transaction(conn, k, 9, lambda c: db.upsert(c, table, k, "new"))
    ran: List[int] = []

    def stale_work(c: Any) -> None:
        ran.append(1)
        db.upsert(c, table, k, "old")
    with t.assertRaises(zkfence.StaleToken) as stale:
        fence.in_transaction(conn, k, 4, stale_work)
    e = stale.exception
    t.assertEqual((e.resource, e.presented_token, e.stored_token), (k, 4, 9))
    t.assertIn("presented 4", str(e))
    t.assertEqual(ran, [])
    t.assertEqual(db.value(table, k), "new")
    t.assertEqual(fence.current_token(conn, k), 9)


@scenario("fence-newer-holder-waits-for-older-transaction")
def newer_waits(t: FenceCase, db: Database) -> None:
    fence, k = zkfence.SqlFence(), t.key()
    older = t.fresh(db)
    fence.claim(older, k, 1)
    fence.advance(older, k, 5)  # transaction left open
    newer = db.connect(busy_timeout=0.2)
    t.addCleanup(newer.close)
    if isinstance(db, Postgres):
        pool = ThreadPoolExecutor(1)
        t.addCleanup(pool.shutdown)
        advancing = pool.submit(lambda: (fence.advance(newer, k, 6), newer.commit()))
        await_true("the newer holder waits for the row lock", lambda: db.waits_for_lock(newer))
        t.assertFalse(advancing.done())
        older.commit()
        advancing.result(PATIENCE)
    else:  # SQLite locks the database: the second writer's busy timeout runs out
        with t.assertRaises(zkfence.SerializationConflict):
            fence.advance(newer, k, 6)
        newer.rollback()
        older.commit()
        fence.claim(newer, k, 6)
    with t.assertRaises(zkfence.StaleToken) as stale:
        fence.claim(older, k, 5)
    t.assertEqual(stale.exception.stored_token, 6)


@scenario("fence-autocommit-refused")
def autocommit_refused(t: FenceCase, db: Database) -> None:
    fence, k = zkfence.SqlFence(), t.key()
    t.fresh(db)
    conn = db.connect(autocommit=True)
    t.addCleanup(conn.close)
    with t.assertRaises(ValueError) as refused:
        fence.advance(conn, k, 3)
    t.assertIn("auto-commit", str(refused.exception))
    t.assertIsNone(fence.current_token(conn, k))


@scenario("fence-bad-input-refused")
def bad_input(t: FenceCase, db: Database) -> None:
    fence, conn = zkfence.SqlFence(), t.fresh(db)
    for key, token, rule in [("  ", 1, "blank"), ("k" * 256, 1, "limit is 255"), ("a\0b", 1, "NUL"),
                             ("a\ud800b", 1, "unpaired surrogate"), ("k-ok", 0, "from 1"), ("k-ok", -1, "from 1")]:
        with t.subTest(rule=rule, token=token):
            with t.assertRaises(ValueError) as refused:
                fence.advance(conn, key, token)
            t.assertIn(rule, str(refused.exception))
    t.assertIsNone(fence.current_token(conn, "k-ok"))
    with t.assertRaises(TypeError):
        fence.advance(conn, "k-ok", "7")


@scenario("fence-table-missing")
def table_missing(t: FenceCase, db: Database) -> None:
    table = "missing_fence_" + uuid.uuid4().hex[:8]
    conn = db.connect()
    t.addCleanup(conn.close)
    with t.assertRaises(zkfence.FenceTableMissing) as missing:
        zkfence.SqlFence(table=table).advance(conn, t.key(), 1)
    t.assertIn(table, str(missing.exception))
    conn.rollback()


@scenario("fence-sql-is-fencing-jdbcs", databases=("postgres",))
def same_sql(t: FenceCase, db: Database) -> None:
    jdbc = REPO / "fencing-jdbc" / "src" / "main" / "resources" / "io" / "zkfence" / "jdbc" / "postgres"
    ours = PACKAGE_ROOT / "src" / "zkfence" / "sql" / "postgres"
    names = ["fence_advance", "fence_locked_read", "fence_insert", "fence_read", "zkfence_fence"]
    t.assertEqual(sorted(p.stem for p in ours.glob("*.sql")), sorted(names))
    for name in names:
        t.assertEqual((ours / (name + ".sql")).read_bytes(), (jdbc / (name + ".sql")).read_bytes(), name)
