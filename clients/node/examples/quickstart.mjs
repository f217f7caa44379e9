// Take a lock from zkfence-server, write with its fencing token through the fence, give it back.
//   ZKFENCE_API_KEY=... PGHOST=... PGUSER=... node quickstart.mjs http://zkfence-a:8080 http://zkfence-b:8080
import { Client } from '@zkfence/client';
import { PgFence } from '@zkfence/client/pg';
import pg from 'pg';

const replicas = process.argv.length > 2 ? process.argv.slice(2) : ['http://localhost:8080'];
const client = new Client(replicas, { apiKey: process.env.ZKFENCE_API_KEY });
const pool = new pg.Pool(); // PGHOST, PGPORT, PGUSER, PGDATABASE from the environment
const fence = new PgFence();
await fence.createIfMissing(pool);
await pool.query('CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, quantity INTEGER)');

await client.withLock('inventory-service:sku:123', { ttlMs: 30_000, waitMs: 10_000 }, async (lease) => {
  lease.check(); // still ours? local, no round trip
  await fence.inTransaction(pool, 'inventory-service:sku:123', lease.fencingToken, (db) => db.query( // rejects lower tokens
    "INSERT INTO stock VALUES ('123', 41) ON CONFLICT (sku) DO UPDATE SET quantity = stock.quantity - 1"));
  console.log(`reserved sku 123 with fencing token ${lease.fencingToken}`);
});
await pool.end();
