"""Fencing in SQL databases from Python: fencing-jdbc's fence table and rule over DB-API 2.0.

One row per resource key holds the highest fencing token accepted for it. ``advance`` runs, in
the caller's transaction and before its writes, one conditional UPDATE (``fence_token <= mine``);
a lower token raises ``StaleToken`` and the caller's transaction must roll back. The statements
are fencing-jdbc's own for PostgreSQL (the files are the same, checked by the tests) and the
same rule for SQLite.
"""

import os
import re
import socket
import sys
from importlib import resources
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

from ._errors import FenceError, FenceTableMissing, SerializationConflict, StaleToken

T = TypeVar("T")

DIALECTS = ("postgres", "sqlite")
MAX_KEY_LENGTH = 255  # UTF-16 code units, as fencing-jdbc counts them (its VARCHAR(255) key column)
MAX_TOKEN = 2 ** 63 - 1  # BIGINT
_MAX_ROUNDS = 3
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_DRIVERS = {"sqlite3": "sqlite", "psycopg2": "postgres", "psycopg": "postgres", "pg8000": "postgres"}
_PG_CONFLICT = {"40001", "40P01", "55P03"}  # serialization failure, deadlock, lock_timeout
_PG_MISSING = {"42P01", "3F000"}  # undefined table, undefined schema
_PG_CREATED_CONCURRENTLY = {"42P07", "42710", "23505"}


class _Statement:
    """One of the dialect's SQL files: the statement and what its placeholders bind, in order."""

    def __init__(self, dialect: str, name: str, table: str):
        text = resources.files(__package__).joinpath("sql").joinpath(dialect).joinpath(name + ".sql").read_text("utf-8")
        lines = text.splitlines()
        binds = [l.split(":", 1)[1] for l in lines if l.startswith("-- binds:")]
        self.binds: List[str] = [b.strip() for b in binds[0].split(",")] if binds else []
        sql = "\n".join(l for l in lines if not l.lstrip().startswith("--")).strip()
        if sql.count("?") != len(self.binds):
            raise AssertionError("%s/%s.sql: %d placeholders, %d binds" % (dialect, name, sql.count("?"),
                                                                          len(self.binds)))
        self.sql = re.sub(r"\bzkfence_fence\b", table, sql)

    def render(self, paramstyle: str) -> str:
        return self.sql if paramstyle == "qmark" else self.sql.replace("?", "%s")

    def values(self, **named: Any) -> Tuple[Any, ...]:
        return tuple(named[b] for b in self.binds)


class SqlFence:
    """A fence table on a DB-API 2.0 connection (``sqlite3``, ``psycopg2``, ``psycopg``, ``pg8000``).

    Args:
        dialect: ``"postgres"`` or ``"sqlite"``; None tells it from each connection's driver.
        table: the fence table's name (a plain identifier, optionally ``schema.table``).
        holder: written to the ``holder`` column for people reading the table (default pid@host).
    """

    def __init__(self, dialect: Optional[str] = None, *, table: str = "zkfence_fence",
                 holder: Optional[str] = None):
        if dialect is not None and dialect not in DIALECTS:
            raise ValueError("dialect must be one of %s, got %r" % (", ".join(DIALECTS), dialect))
        parts = table.split(".") if isinstance(table, str) else [None]
        if not 1 <= len(parts) <= 2 or not all(isinstance(p, str) and _IDENTIFIER.match(p) for p in parts):
            raise ValueError("table %r must be a plain SQL identifier (letters, digits, _; not starting with a "
                             "digit; at most 63 characters), optionally schema-qualified" % (table,))
        self.dialect = dialect
        self.table = table
        self.holder = holder if holder is not None else "%d@%s" % (os.getpid(), socket.gethostname())
        self._statements: Dict[str, Dict[str, _Statement]] = {}

    # -- the calls -------------------------------------------------------------------------------

    def create_if_missing(self, conn: Any) -> None:
        """Creates the fence table if it does not exist, and commits. Safe when several
        processes start together (a concurrent creator's win is confirmed, not an error)."""
        dialect, style = self._dialect(conn)
        ddl = self._sql(dialect, "zkfence_fence")
        cur = conn.cursor()
        try:
            cur.execute(ddl.render(style))
            conn.commit()
        except Exception as e:
            conn.rollback()
            if dialect != "postgres" or _sqlstate(e) not in _PG_CREATED_CONCURRENTLY:
                raise self._translate(dialect, e, None, None, "creating the fence table") from e
            cur = conn.cursor()
            cur.execute("SELECT 1 FROM %s WHERE 1 = 0" % self.table)  # it exists now, or this raises
            conn.rollback()
        finally:
            _close(cur)

    def advance(self, conn: Any, key: str, token: int) -> None:
        """Advances the fence of ``key`` to ``token`` in the connection's open transaction, the
        first statement before the writes it protects; keeps the key's row (SQLite: the database)
        locked until the transaction ends. Neither commits nor rolls back.

        Raises ``StaleToken`` if a higher token was accepted (roll back then),
        ``SerializationConflict`` (retry the whole unit of work), ``FenceTableMissing``,
        ``FenceError``; ``ValueError`` / ``TypeError`` for a bad key or token or an auto-commit
        connection, before anything is sent."""
        _require_key(key)
        _require_token(key, token)
        dialect, style = self._dialect(conn)
        if _autocommit(conn):
            raise ValueError("connection is in auto-commit mode, so advancing the fence of resource '%s' with token "
                             "%d here would not be atomic with the writes it protects; begin a transaction first "
                             "(autocommit off, or an explicit BEGIN), or use SqlFence.in_transaction, which runs its "
                             "own" % (key, token))
        self._advance_translated(conn, dialect, style, key, token)

    def _advance_translated(self, conn: Any, dialect: str, style: str, key: str, token: int) -> None:
        cur = conn.cursor()
        try:
            self._advance(dialect, style, cur, key, token)
        except FenceError:
            raise
        except Exception as e:
            raise self._translate(dialect, e, key, token, "advancing the fence") from e
        finally:
            _close(cur)

    def in_transaction(self, conn: Any, key: str, token: int, work: Callable[[Any], T]) -> T:
        """Advances the fence, runs ``work(conn)`` and commits, as one transaction; rolls back
        and re-raises on any exception (``StaleToken``: ``work`` never ran). Returns what
        ``work`` returned. On a connection in auto-commit mode it runs its own ``BEGIN`` (SQLite:
        ``BEGIN IMMEDIATE``, which takes the write lock at once) and ``COMMIT``."""
        _require_key(key)
        _require_token(key, token)
        dialect, style = self._dialect(conn)
        explicit = _autocommit(conn)
        try:
            if explicit:
                self._statement(conn, "BEGIN IMMEDIATE" if dialect == "sqlite" else "BEGIN")
            self._advance_translated(conn, dialect, style, key, token)
            result = work(conn)
            if explicit:
                self._statement(conn, "COMMIT")
            else:
                conn.commit()
            return result
        except BaseException as e:
            if explicit:
                try:
                    self._statement(conn, "ROLLBACK")
                except Exception as rollback_error:  # the BEGIN failed: there is no transaction to end
                    e.__context__ = rollback_error
            else:
                conn.rollback()
            if not isinstance(e, FenceError) and _conflict(dialect, e):
                raise SerializationConflict(
                    "the unit of work fenced for resource '%s' with token %d hit a serialization conflict (%s); "
                    "retry it whole in a new transaction with the same token" % (key, token, e),
                    resource_key=key, token=token) from e
            raise

    @staticmethod
    def _statement(conn: Any, sql: str) -> None:
        cur = conn.cursor()
        try:
            cur.execute(sql)
        finally:
            _close(cur)

    def claim(self, conn: Any, key: str, token: int) -> None:
        """Advances the fence in a short transaction of its own, right after the lock is granted,
        so a paused former holder is cut off before the new holder's first write."""
        self.in_transaction(conn, key, token, lambda c: None)

    def current_token(self, conn: Any, key: str) -> Optional[int]:
        """The highest token accepted for ``key`` (None if none yet), read without locks in the
        connection's current transaction."""
        _require_key(key)
        dialect, style = self._dialect(conn)
        read = self._sql(dialect, "fence_read")
        cur = conn.cursor()
        try:
            cur.execute(read.render(style), read.values(key=key))
            row = cur.fetchone()
            return None if row is None else int(row[0])
        except Exception as e:
            raise self._translate(dialect, e, key, None, "reading the fence") from e
        finally:
            _close(cur)

    def __repr__(self) -> str:
        return "<SqlFence table=%r dialect=%r>" % (self.table, self.dialect)

    # -- the algorithm (fencing-jdbc's FenceAdvance) ---------------------------------------------

    def _advance(self, dialect: str, style: str, cur: Any, key: str, token: int) -> None:
        advance, locked_read, insert = (self._sql(dialect, n) for n in ("fence_advance", "fence_locked_read",
                                                                        "fence_insert"))
        values = dict(key=key, token=token, holder=self.holder)
        lost_before = False
        for _ in range(_MAX_ROUNDS):
            cur.execute(advance.render(style), advance.values(**values))
            if cur.rowcount > 0:
                return
            cur.execute(locked_read.render(style), locked_read.values(**values))
            row = cur.fetchone()
            if row is not None:
                stored = int(row[0])
                if stored > token:
                    raise StaleToken(key, token, stored, self.table)
                # The row admits the token and is locked by us now: created by another
                # transaction after our UPDATE looked.
                cur.execute(advance.render(style), advance.values(**values))
                return
            if self._insert(dialect, style, cur, insert, values):
                return
            if lost_before:
                # The row exists (the insert collides) yet this transaction cannot see it: it
                # was committed after this transaction's snapshot. A new transaction will see it.
                raise SerializationConflict(
                    "advancing the fence for resource '%s' with token %d on %s hit a serialization conflict with a "
                    "concurrent transaction (the key's row was created after this transaction's snapshot); retry the "
                    "whole unit of work in a new transaction with the same token" % (key, token, self.table),
                    resource_key=key, token=token)
            lost_before = True  # lost the race to create the row: it exists now, go round again
        raise FenceError("could not advance the fence for resource '%s' to token %d on %s in %d rounds: its row "
                         "kept disappearing between statements" % (key, token, self.table, _MAX_ROUNDS),
                         resource_key=key, token=token)

    def _insert(self, dialect: str, style: str, cur: Any, insert: _Statement, values: Dict[str, Any]) -> bool:
        """Inserts the key's row: True, or False when the row exists already."""
        try:
            cur.execute(insert.render(style), insert.values(**values))
        except Exception as e:
            if dialect == "sqlite" and type(e).__name__ == "IntegrityError" and "UNIQUE" in str(e):
                return False
            raise
        return cur.rowcount > 0  # PostgreSQL's ON CONFLICT DO NOTHING inserts nothing when it exists

    def _sql(self, dialect: str, name: str) -> _Statement:
        statements = self._statements.setdefault(dialect, {})
        if name not in statements:
            statements[name] = _Statement(dialect, name, self.table)
        return statements[name]

    def _dialect(self, conn: Any) -> Tuple[str, str]:
        driver = type(conn).__module__.split(".")[0].lstrip("_")
        module = sys.modules.get(driver)
        paramstyle = getattr(module, "paramstyle", "qmark")
        dialect = self.dialect or _DRIVERS.get(driver)
        if dialect is None:
            raise ValueError("cannot tell the database of a %s.%s connection; pass SqlFence(dialect='postgres') or "
                             "'sqlite'" % (type(conn).__module__, type(conn).__name__))
        if paramstyle not in ("qmark", "format", "pyformat"):
            raise ValueError("driver %s uses paramstyle %r; SqlFence supports qmark, format and pyformat"
                             % (driver, paramstyle))
        return dialect, "qmark" if paramstyle == "qmark" else "format"

    def _translate(self, dialect: str, e: BaseException, key: Optional[str], token: Optional[int],
                   doing: str) -> FenceError:
        where = "%s for resource '%s' with token %s on %s" % (doing, key, token, self.table) if key else \
            "%s on %s" % (doing, self.table)
        if _conflict(dialect, e):
            return SerializationConflict("%s hit a serialization conflict or lock wait limit (%s); retry the whole "
                                         "unit of work in a new transaction with the same token" % (where, e),
                                         resource_key=key, token=token)
        if _missing(dialect, e):
            return FenceTableMissing("%s: the fence table %s does not exist (%s); run "
                                     "SqlFence.create_if_missing or the migration" % (where, self.table, e),
                                     resource_key=key, token=token)
        return FenceError("%s failed (%s%s)" % (where, type(e).__name__,
                                                 ", SQLSTATE %s" % _sqlstate(e) if _sqlstate(e) else "")
                          + ": %s" % e, resource_key=key, token=token)


_SQLSTATE = re.compile(r"^(?=.*[0-9])[0-9A-Z]{5}$")


def _sqlstate(e: BaseException) -> Optional[str]:
    """The PostgreSQL SQLSTATE of a driver's error: psycopg2's ``pgcode``, psycopg's ``sqlstate``,
    pg8000's error fields (``args[0]['C']`` from 1.16 on; before, the fields' values in wire order
    as ``args``, where the code is the five-character one with a digit, unlike the severity)."""
    code = getattr(e, "pgcode", None) or getattr(e, "sqlstate", None)
    if code:
        return code
    args = getattr(e, "args", ())
    if args and isinstance(args[0], dict):
        found = args[0].get("C")
        return found if isinstance(found, str) else None
    if type(e).__module__.split(".")[0] == "pg8000":
        for value in args:
            if isinstance(value, str) and _SQLSTATE.match(value):
                return value
    return None


def _conflict(dialect: str, e: BaseException) -> bool:
    if dialect == "postgres":
        return _sqlstate(e) in _PG_CONFLICT
    return type(e).__name__ == "OperationalError" and "locked" in str(e)


def _missing(dialect: str, e: BaseException) -> bool:
    if dialect == "postgres":
        return _sqlstate(e) in _PG_MISSING
    return type(e).__name__ == "OperationalError" and "no such table" in str(e)


def _autocommit(conn: Any) -> bool:
    mode = getattr(conn, "autocommit", None)
    if mode is True:
        # psycopg2 and psycopg say when an explicit BEGIN has opened a transaction all the same.
        status = getattr(getattr(conn, "info", None), "transaction_status", None)
        return status != 2  # libpq's PQTRANS_INTRANS
    if type(conn).__module__.lstrip("_").startswith("sqlite3") and mode is not False:
        # Legacy transaction control: no implicit BEGIN when isolation_level is None.
        return conn.isolation_level is None and not conn.in_transaction
    return False


def _close(cur: Any) -> None:
    close = getattr(cur, "close", None)
    if close is not None:
        close()


def _require_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError("resource key must be a string, got %r" % (key,))
    if not key.strip():
        raise ValueError("resource key must not be blank, got %r" % key)
    units = len(key.encode("utf-16-le", "surrogatepass")) // 2
    if units > MAX_KEY_LENGTH:
        raise ValueError("resource key '%s...' is %d characters long (UTF-16 code units); the limit is %d"
                         % (key[:40], units, MAX_KEY_LENGTH))
    for i, c in enumerate(key):
        if c == "\0":
            raise ValueError("resource key %r contains a NUL character (at index %d); keys must not contain U+0000"
                             % (key, i))
        if "\ud800" <= c <= "\udfff":
            raise ValueError("resource key %r is not well-formed Unicode: unpaired surrogate U+%04X at index %d"
                             % (key, ord(c), i))
    return key


def _require_token(key: str, token: Any) -> int:
    if isinstance(token, bool) or not isinstance(token, int):
        raise TypeError("fencing token for resource '%s' must be an int, got %r" % (key, token))
    if not 1 <= token <= MAX_TOKEN:
        raise ValueError("fencing token for resource '%s' must be from 1 to 2^63-1, got %d" % (key, token))
    return token
