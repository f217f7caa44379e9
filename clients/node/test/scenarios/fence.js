// The conformance scenarios of the fence, on PostgreSQL (support/postgres.js).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FenceTableMissingError, SerializationConflictError, StaleTokenError } from '../../src/index.js';
import { POSTGRES } from '../../src/sql.js';
import { PgFence } from '../../src/pg.js';
import { PACKAGE_ROOT, PATIENCE_MS, REPO, awaitTrue } from '../support/common.js';

/** What a fence scenario gets: the PostgreSQL server, a fresh key, business tables. */
export class FenceContext {
  constructor(t, postgres) {
    this.t = t;
    this.postgres = postgres;
    this.pool = postgres.pool;
    this.key = `inventory:sku:${randomUUID().slice(0, 10)}`;
  }

  async fence(options) {
    const fence = new PgFence(options);
    await fence.createIfMissing(this.pool);
    return fence;
  }

  async table() {
    const name = `biz_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    await this.pool.query(`CREATE TABLE ${name} (k VARCHAR(255) PRIMARY KEY, v VARCHAR(255))`);
    return name;
  }

  async value(table) {
    const { rows } = await this.pool.query(`SELECT v FROM ${table} WHERE k = $1`, [this.key]);
    return rows[0]?.v;
  }

  /** A connected client of its own, ended after the test. */
  async connection() {
    const client = this.postgres.client();
    await client.connect();
    this.t.after(() => client.end());
    return client;
  }
}

const upsert = (table, k, v) => (client) => client.query(
  `INSERT INTO ${table} (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [k, v],
);

export const fence = {
  async 'fence-first-write-creates-row'(c) {
    const f = await c.fence();
    const table = await c.table();
    await f.inTransaction(c.pool, c.key, 7, upsert(table, c.key, 'v7'));
    assert.equal(await f.currentToken(c.pool, c.key), 7n);
    assert.equal(await c.value(table), 'v7');
  },

  async 'fence-equal-and-higher-accepted'(c) {
    const f = await c.fence();
    for (const token of [5, 5n, 9]) await f.claim(c.pool, c.key, token);
    assert.equal(await f.currentToken(c.pool, c.key), 9n);
  },

  async 'fence-lower-rejected-nothing-written'(c) {
    const f = await c.fence();
    const table = await c.table();
    await f.inTransaction(c.pool, c.key, 9, upsert(table, c.key, 'new'));
    const ran = [];
    const stale = await f.inTransaction(c.pool, c.key, 4, async (client) => {
      ran.push(1);
      await upsert(table, c.key, 'old')(client);
    }).then(() => undefined, (e) => e);
    assert.ok(stale instanceof StaleTokenError, String(stale));
    assert.deepEqual([stale.resource, stale.presentedToken, stale.storedToken], [c.key, 4n, 9n]);
    assert.match(stale.message, /presented 4/);
    assert.deepEqual(ran, []);
    assert.equal(await c.value(table), 'new');
    assert.equal(await f.currentToken(c.pool, c.key), 9n);
  },

  async 'fence-newer-holder-waits-for-older-transaction'(c) {
    const f = await c.fence();
    await f.claim(c.pool, c.key, 1);
    const older = await c.connection();
    const newer = await c.connection();
    await older.query('BEGIN');
    await f.advance(older, c.key, 5); // transaction left open
    const newerPid = (await newer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    let done = false;
    const advancing = f.inTransaction(newer, c.key, 6, async () => undefined).finally(() => { done = true; });
    await awaitTrue('the newer holder waits for the row lock', async () => {
      const { rows } = await c.pool.query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [newerPid]);
      return rows[0]?.wait_event_type === 'Lock';
    }, PATIENCE_MS);
    assert.equal(done, false);
    await older.query('COMMIT');
    await advancing;
    const stale = await f.claim(older, c.key, 5).then(() => undefined, (e) => e);
    assert.ok(stale instanceof StaleTokenError, String(stale));
    assert.equal(stale.storedToken, 6n);
  },

  async 'fence-autocommit-refused'(c) {
    const f = await c.fence();
    const table = await c.table();
    const conn = await c.connection();
    await assert.rejects(f.advance(conn, c.key, 3), (e) => e instanceof TypeError && /auto-commit/.test(e.message));
    assert.equal(await f.currentToken(c.pool, c.key), null);
    // inTransaction runs its own BEGIN and COMMIT on a client outside a transaction.
    await f.inTransaction(conn, c.key, 3, upsert(table, c.key, 'v3'));
    assert.equal(await f.currentToken(c.pool, c.key), 3n);
    assert.equal(await c.value(table), 'v3');
  },

  async 'fence-first-write-race'(c) {
    const f = await c.fence();
    const n = 8;
    const table = `race_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
    await c.pool.query(`CREATE TABLE ${table} (id BIGSERIAL PRIMARY KEY, token BIGINT NOT NULL)`);
    const tokens = Array.from({ length: n }, (_, i) => BigInt(i + 1)).sort(() => Math.random() - 0.5);
    const clients = await Promise.all(tokens.map(() => c.connection()));
    // Each holder on its own connection, all started on the same turn of the event loop.
    const outcomes = await Promise.all(tokens.map(async (token, i) => {
      for (let attempt = 0; attempt < 20; attempt += 1) {
        try {
          await f.inTransaction(clients[i], c.key, token,
            (db) => db.query(`INSERT INTO ${table} (token) VALUES ($1)`, [String(token)]));
          return [token, 'accepted'];
        } catch (e) {
          if (e instanceof SerializationConflictError) continue; // retry the whole unit of work, same token
          return [token, e];
        }
      }
      return [token, 'still conflicting after 20 tries'];
    }));
    const byToken = new Map(outcomes);
    assert.equal(byToken.get(BigInt(n)), 'accepted', String(byToken.get(BigInt(n))));
    for (const [token, outcome] of outcomes) {
      if (outcome === 'accepted') continue;
      assert.ok(outcome instanceof StaleTokenError, `token ${token}: ${outcome}`);
      assert.ok(outcome.storedToken > token);
    }
    assert.equal(await f.currentToken(c.pool, c.key), BigInt(n));
    const rows = (await c.pool.query('SELECT COUNT(*)::int AS n FROM zkfence_fence WHERE resource_key = $1', [c.key])).rows;
    assert.equal(rows[0].n, 1);
    const written = (await c.pool.query(`SELECT token FROM ${table} ORDER BY id`)).rows.map((r) => BigInt(r.token));
    assert.deepEqual(written, [...written].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)), 'never down in commit order');
    assert.deepEqual(new Set(written), new Set(outcomes.filter(([, o]) => o === 'accepted').map(([t]) => t)));
    assert.equal(new Set(written).size, written.length);
  },

  async 'fence-bad-input-refused'(c) {
    const f = await c.fence();
    const conn = await c.connection();
    await conn.query('BEGIN');
    const cases = [['  ', 1, /blank/], ['k'.repeat(256), 1, /limit is 255/], ['a\0b', 1, /NUL/],
      ['a\ud800b', 1, /unpaired surrogate/], ['k-ok', 0, /from 1/], ['k-ok', -1, /from 1/], ['k-ok', 1.5, /safe integer/]];
    for (const [key, token, rule] of cases) {
      await assert.rejects(f.advance(conn, key, token), (e) => (e instanceof RangeError || e instanceof TypeError)
        && rule.test(e.message), `${JSON.stringify(key)} ${token}`);
    }
    await conn.query('ROLLBACK');
    assert.equal(await f.currentToken(c.pool, 'k-ok'), null);
  },

  async 'fence-table-missing'(c) {
    const table = `missing_fence_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
    const missing = await new PgFence({ table }).claim(c.pool, c.key, 1).then(() => undefined, (e) => e);
    assert.ok(missing instanceof FenceTableMissingError, String(missing));
    assert.ok(missing.message.includes(table), missing.message);
  },

  async 'fence-sql-is-fencing-jdbcs'() {
    // The statements are inlined (src/sql.js, so that bundlers carry them): each is its file's text.
    const jdbc = join(REPO, 'fencing-jdbc', 'src', 'main', 'resources', 'io', 'zkfence', 'jdbc', 'postgres');
    const names = ['fence_advance', 'fence_insert', 'fence_locked_read', 'fence_read', 'zkfence_fence'];
    assert.deepEqual(Object.keys(POSTGRES).sort(), names);
    for (const name of names) assert.equal(POSTGRES[name], readFileSync(join(jdbc, `${name}.sql`), 'utf8'), name);
    assert.ok(!existsSync(join(PACKAGE_ROOT, 'src', 'sql')), 'no SQL file is read at run time');
  },
};
