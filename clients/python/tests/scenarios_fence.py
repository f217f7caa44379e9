"""The conformance scenarios of the fence, on PostgreSQL and on SQLite (databases.py)."""

import random
import threading
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

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
        pid = db.backend_pid(newer)
        pool = ThreadPoolExecutor(1)
        t.addCleanup(pool.shutdown)
        advancing = pool.submit(lambda: (fence.advance(newer, k, 6), newer.commit()))
        await_true("the newer holder waits for the row lock", lambda: db.waits_for_lock(pid))
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


@scenario("fence-first-write-race")
def first_write_race(t: FenceCase, db: Database) -> None:
    fence, k, n = zkfence.SqlFence(), t.key(), 8
    t.fresh(db)
    table = "race_" + uuid.uuid4().hex[:10]
    setup = db.connect()
    t.addCleanup(setup.close)
    setup.cursor().execute("CREATE TABLE %s (id %s, token BIGINT NOT NULL)"
                           % (table, "BIGSERIAL PRIMARY KEY" if isinstance(db, Postgres) else
                              "INTEGER PRIMARY KEY AUTOINCREMENT"))
    setup.commit()
    tokens = list(range(1, n + 1))
    random.shuffle(tokens)
    barrier = threading.Barrier(n)
    outcomes: Dict[int, Any] = {}

    def holder(token: int) -> None:
        conn = db.connect(busy_timeout=30)
        try:
            barrier.wait(PATIENCE)
            for _ in range(20):
                try:
                    fence.in_transaction(conn, k, token, lambda c: c.cursor().execute(
                        "INSERT INTO %s (token) VALUES (%s)" % (table, db.placeholder), (token,)))
                    outcomes[token] = "accepted"
                    return
                except zkfence.SerializationConflict:
                    continue  # retry the whole unit of work with the same token, as the docs say
                except zkfence.StaleToken as e:
                    outcomes[token] = e
                    return
            outcomes[token] = "still conflicting after 20 tries"
        except BaseException as e:  # reported below as the outcome
            outcomes[token] = e
        finally:
            conn.close()
    threads = [threading.Thread(target=holder, args=(tok,)) for tok in tokens]
    for th in threads:
        th.start()
    for th in threads:
        th.join(PATIENCE * 2)
    t.assertEqual(len(outcomes), n, outcomes)
    t.assertEqual(outcomes[n], "accepted", outcomes)
    for token, outcome in outcomes.items():
        if outcome != "accepted":
            t.assertIsInstance(outcome, zkfence.StaleToken, "token %d: %r" % (token, outcome))
            t.assertGreater(outcome.stored_token, token)
    t.assertEqual(fence.current_token(setup, k), n)
    cur = setup.cursor()
    cur.execute("SELECT COUNT(*) FROM zkfence_fence WHERE resource_key = %s" % db.placeholder, (k,))
    t.assertEqual(cur.fetchone()[0], 1)
    cur.execute("SELECT token FROM %s ORDER BY id" % table)
    written = [row[0] for row in cur.fetchall()]
    setup.rollback()
    t.assertEqual(written, sorted(written), "accepted tokens in commit order never go down")
    t.assertEqual(len(written), len(set(written)))
    t.assertEqual(set(written), {tok for tok, o in outcomes.items() if o == "accepted"})


@scenario("fence-autocommit-refused")
def autocommit_refused(t: FenceCase, db: Database) -> None:
    fence, k, table = zkfence.SqlFence(), t.key(), db.new_table()
    t.fresh(db)
    conn = db.connect(autocommit=True)
    t.addCleanup(conn.close)
    with t.assertRaises(ValueError) as refused:
        fence.advance(conn, k, 3)
    t.assertIn("auto-commit", str(refused.exception))
    t.assertIsNone(fence.current_token(conn, k))
    # The fence's own transaction runs its BEGIN and COMMIT on such a connection.
    fence.in_transaction(conn, k, 3, lambda c: db.upsert(c, table, k, "v3"))
    t.assertEqual(fence.current_token(conn, k), 3)
    t.assertEqual(db.value(table, k), "v3")
    with t.assertRaises(zkfence.StaleToken):
        fence.in_transaction(conn, k, 2, lambda c: db.upsert(c, table, k, "v2"))
    t.assertEqual(db.value(table, k), "v3")


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
