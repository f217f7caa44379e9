// Fencing in PostgreSQL from Node.js: fencing-jdbc's fence table and rule on node-postgres ('pg',
// an optional peer dependency; this module never imports it: it calls the pool or client it is given).
//
// One row per resource key holds the highest fencing token accepted for it. advance() runs, in the
// caller's transaction and before its writes, one conditional UPDATE (fence_token <= mine); a lower
// token rejects with StaleTokenError and the transaction must roll back. The statements are
// fencing-jdbc's own files, inlined in sql.js (checked by the tests).
import { hostname } from 'node:os';
import {
  FenceError, FenceTableMissingError, SerializationConflictError, StaleTokenError,
} from './errors.js';
import { POSTGRES } from './sql.js';

const MAX_KEY_LENGTH = 255; // UTF-16 code units, as fencing-jdbc counts them (its VARCHAR(255) key column)
const MAX_TOKEN = 2n ** 63n - 1n; // BIGINT
const MAX_ROUNDS = 3;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const CONFLICT = new Set(['40001', '40P01', '55P03']); // serialization failure, deadlock, lock_timeout
const MISSING = new Set(['42P01', '3F000']); // undefined table, undefined schema
const CREATED_CONCURRENTLY = new Set(['42P07', '42710', '23505']);

/** One of the SQL files: the statement with $n placeholders and what they bind, in order. */
function statement(name, table) {
  const text = POSTGRES[name];
  const lines = text.split('\n');
  const bindsLine = lines.find((l) => l.startsWith('-- binds:'));
  const binds = bindsLine ? bindsLine.slice('-- binds:'.length).split(',').map((b) => b.trim()) : [];
  const sql = lines.filter((l) => !l.trimStart().startsWith('--')).join('\n').trim();
  if ((sql.match(/\?/g) ?? []).length !== binds.length) {
    throw new Error(`fencing-jdbc's ${name}.sql: placeholders and binds differ`);
  }
  let n = 0;
  return { sql: sql.replace(/\bzkfence_fence\b/g, table).replace(/\?/g, () => `$${++n}`), binds };
}

function requireKey(key) {
  if (typeof key !== 'string') throw new TypeError(`resource key must be a string, got ${typeof key}`);
  if (!key.trim()) throw new RangeError(`resource key must not be blank, got '${key}'`);
  if (key.length > MAX_KEY_LENGTH) {
    throw new RangeError(`resource key '${key.slice(0, 40)}...' is ${key.length} characters long (UTF-16 code `
      + `units); the limit is ${MAX_KEY_LENGTH}`);
  }
  const nul = key.indexOf('\0');
  if (nul >= 0) throw new RangeError(`resource key contains a NUL character (at index ${nul}); keys must not contain U+0000`);
  if (!key.isWellFormed()) {
    throw new RangeError('resource key is not well-formed Unicode: it has an unpaired surrogate; keys must be '
      + 'well-formed UTF-16');
  }
  return key;
}

function requireToken(key, token) {
  let value;
  if (typeof token === 'bigint') value = token;
  else if (Number.isSafeInteger(token)) value = BigInt(token);
  else throw new TypeError(`fencing token for resource '${key}' must be a bigint or a safe integer, got ${token}`);
  if (value < 1n || value > MAX_TOKEN) {
    throw new RangeError(`fencing token for resource '${key}' must be from 1 to 2^63-1, got ${value}`);
  }
  return value;
}

/**
 * A fence table on PostgreSQL through node-postgres.
 * `table`: its name (a plain identifier, optionally schema-qualified); `holder`: written to the
 * holder column for people reading the table (default pid@host).
 */
export class PgFence {
  #sql = {};

  constructor({ table = 'zkfence_fence', holder = `${process.pid}@${hostname()}` } = {}) {
    const parts = typeof table === 'string' ? table.split('.') : [];
    if (parts.length < 1 || parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
      throw new TypeError(`table '${table}' must be a plain SQL identifier (letters, digits, _; not starting with a `
        + 'digit; at most 63 characters), optionally schema-qualified');
    }
    this.table = table;
    this.holder = holder;
  }

  #statement(name) {
    this.#sql[name] ??= statement(name, this.table);
    return this.#sql[name];
  }

  async #run(client, name, values) {
    const s = this.#statement(name);
    return client.query(s.sql, s.binds.map((b) => values[b]));
  }

  /** Creates the fence table if missing (safe when several processes start together). `db`: a pool or client. */
  async createIfMissing(db) {
    try {
      await db.query(this.#statement('zkfence_fence').sql);
    } catch (e) {
      if (!CREATED_CONCURRENTLY.has(e?.code)) throw this.#translate(e, undefined, undefined, 'creating the fence table');
      await db.query(`SELECT 1 FROM ${this.table} WHERE 1 = 0`); // created by another process meanwhile
    }
  }

  /**
   * Advances the fence of `key` to `token` in `client`'s open transaction (after BEGIN, before the
   * writes it protects); the key's row stays locked until the transaction ends. Neither commits nor
   * rolls back. Rejects with StaleTokenError (roll back then), SerializationConflictError (retry the
   * whole unit of work), FenceTableMissingError, FenceError; TypeError/RangeError for a bad key or
   * token or a client outside a transaction, before anything is written.
   */
  async advance(client, key, token) {
    requireKey(key);
    const value = requireToken(key, token);
    await this.#requireTransaction(client, key, value);
    try {
      await this.#advance(client, key, value);
    } catch (e) {
      if (e instanceof FenceError) throw e;
      throw this.#translate(e, key, value, 'advancing the fence');
    }
  }

  /**
   * BEGIN, advance, `work(client)`, COMMIT on one connection of `db` (a pg.Pool, or a connected
   * pg.Client); ROLLBACK and rethrow on any error (StaleTokenError: `work` never ran).
   * Resolves to what `work` resolved to.
   */
  async inTransaction(db, key, token, work) {
    requireKey(key);
    requireToken(key, token);
    const pooled = typeof db.totalCount === 'number';
    const client = pooled ? await db.connect() : db;
    let broken;
    try {
      await client.query('BEGIN');
      try {
        await this.advance(client, key, token);
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError; // the connection is unusable: the pool must not hand it out again
        }
        if (!(e instanceof FenceError) && CONFLICT.has(e?.code)) {
          throw new SerializationConflictError(`the unit of work fenced for resource '${key}' with token ${token} hit `
            + `a serialization conflict (SQLSTATE ${e.code}); retry it whole in a new transaction with the same token`,
          { resourceKey: key, token: BigInt(token), cause: e });
        }
        throw e;
      }
    } finally {
      if (pooled) client.release(broken);
    }
  }

  /** Advances the fence in a short transaction of its own, right after the lock is granted. */
  async claim(db, key, token) {
    await this.inTransaction(db, key, token, async () => undefined);
  }

  /** The highest token accepted for `key` (a bigint), or null; read without locks. */
  async currentToken(db, key) {
    requireKey(key);
    try {
      const { rows } = await this.#run(db, 'fence_read', { key });
      return rows.length ? BigInt(rows[0].fence_token) : null;
    } catch (e) {
      throw this.#translate(e, key, undefined, 'reading the fence');
    }
  }

  async #requireTransaction(client, key, token) {
    const status = typeof client.getTransactionStatus === 'function' ? client.getTransactionStatus() : null;
    let inTransaction;
    if (status === 'T') inTransaction = true;
    else if (status === 'I') inTransaction = false;
    else if (status === 'E') {
      throw new TypeError(`the transaction on this connection has failed already; roll it back before fencing resource '${key}'`);
    } else {
      // pg before getTransactionStatus(): a savepoint is refused outside a transaction block.
      try {
        await client.query('SAVEPOINT zkfence_fence_check');
        await client.query('RELEASE SAVEPOINT zkfence_fence_check');
        inTransaction = true;
      } catch (e) {
        if (e?.code !== '25P01') throw e;
        inTransaction = false;
      }
    }
    if (!inTransaction) {
      throw new TypeError(`the connection is not in a transaction (auto-commit), so fencing resource '${key}' with token `
        + `${token} would not be atomic with the writes it protects; run BEGIN first, or use PgFence.inTransaction`);
    }
  }

  async #advance(client, key, token) {
    const values = { key, token: String(token), holder: this.holder };
    let lostBefore = false;
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      if ((await this.#run(client, 'fence_advance', values)).rowCount > 0) return;
      const { rows } = await this.#run(client, 'fence_locked_read', values);
      if (rows.length) {
        const stored = BigInt(rows[0].fence_token);
        if (stored > token) throw new StaleTokenError(key, token, stored, this.table);
        // The row admits the token and is locked by us now: created after our UPDATE looked.
        await this.#run(client, 'fence_advance', values);
        return;
      }
      // ON CONFLICT DO NOTHING: no row inserted means another transaction created it first.
      if ((await this.#run(client, 'fence_insert', values)).rowCount > 0) return;
      if (lostBefore) {
        throw new SerializationConflictError(`advancing the fence for resource '${key}' with token ${token} on `
          + `${this.table} hit a serialization conflict with a concurrent transaction (the key's row was created after `
          + 'this transaction\'s snapshot); retry the whole unit of work in a new transaction with the same token',
        { resourceKey: key, token });
      }
      lostBefore = true; // lost the race to create the row: it exists now, go round again
    }
    throw new FenceError(`could not advance the fence for resource '${key}' to token ${token} on ${this.table} in `
      + `${MAX_ROUNDS} rounds: its row kept disappearing between statements`, { resourceKey: key, token });
  }

  #translate(e, key, token, doing) {
    const where = key === undefined ? `${doing} on ${this.table}`
      : `${doing} for resource '${key}' with token ${token} on ${this.table}`;
    if (CONFLICT.has(e?.code)) {
      return new SerializationConflictError(`${where} hit a serialization conflict or lock wait limit (SQLSTATE `
        + `${e.code}: ${e.message}); retry the whole unit of work in a new transaction with the same token`,
      { resourceKey: key, token, cause: e });
    }
    if (MISSING.has(e?.code)) {
      return new FenceTableMissingError(`${where}: the fence table ${this.table} does not exist (${e.message}); run `
        + 'PgFence.createIfMissing or the migration', { resourceKey: key, token, cause: e });
    }
    return new FenceError(`${where} failed${e?.code ? ` (SQLSTATE ${e.code})` : ''}: ${e?.message ?? e}`,
      { resourceKey: key, token, cause: e });
  }
}
