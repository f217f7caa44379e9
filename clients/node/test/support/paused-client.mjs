// The client process of 'paused-client-check-fails-and-write-rejected': acquires, writes through
// the PostgreSQL fence, says so, then waits for a line on standard input (the test pauses it with
// SIGSTOP meanwhile, past its lease, and resumes it); then checks its lease and writes again with its
// old token, and prints what happened, as JSON.
//   node paused-client.mjs KEY TABLE PGPORT REPLICA...      (ZKFENCE_API_KEY in the environment)
import { once } from 'node:events';
import pg from 'pg';
import { Client, LeaseLostError, StaleTokenError } from '../../src/index.js';
import { PgFence } from '../../src/pg.js';

const [key, table, pgPort, ...replicas] = process.argv.slice(2);
const pool = new pg.Pool({ host: '127.0.0.1', port: Number(pgPort), user: 'zkfence', database: 'postgres', max: 1 });
const fence = new PgFence();
const client = new Client(replicas, { apiKey: process.env.ZKFENCE_API_KEY, logger: {} });
const write = (token, value) => fence.inTransaction(pool, key, token, (db) => db.query(
  `INSERT INTO ${table} (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, [key, value]));

const lease = await client.acquire(key, { ttlMs: 2000, waitMs: 0 });
await write(lease.fencingToken, 'P-1');
console.log(JSON.stringify({ held: String(lease.fencingToken) }));
process.stdin.setEncoding('utf8');
await once(process.stdin, 'data'); // paused (SIGSTOP) before this line comes, resumed (SIGCONT) after
const result = {};
try {
  lease.check();
  result.check = 'passed';
} catch (e) {
  result.check = e instanceof LeaseLostError ? `LeaseLostError: ${e.message}` : String(e);
}
try {
  await write(lease.fencingToken, 'P-2'); // written anyway: the fence must refuse it
  result.write = 'accepted';
} catch (e) {
  result.write = e instanceof StaleTokenError ? 'StaleTokenError' : String(e);
  result.stored = String(e.storedToken);
}
console.log(JSON.stringify(result));
await pool.end();
process.exit(0);
