// Compiled by `npm run typecheck` (tsc, no output): the declarations in types/ describe the API as
// the docs use it, through the package's own name, as a TypeScript user imports it.
import {
  Client, Lease, LeaseLostError, LockHeldError, RequestFinishedError, ServiceError, StaleTokenError,
  UnavailableError, type LockStatus, type RenewOutcome,
} from '@zkfence/client';
import { PgFence } from '@zkfence/client/pg';
import pg from 'pg';

export async function reserve(pool: pg.Pool, signal: AbortSignal): Promise<bigint> {
  const client = new Client(['http://zkfence-a:8080', 'http://zkfence-b:8080'], {
    apiKey: 'key', timeoutMs: 5000, logger: console,
  });
  const fence = new PgFence({ table: 'zkfence_fence' });
  const token: bigint = await client.withLock('inventory-service:sku:123', { ttlMs: 30_000, waitMs: 10_000, signal },
    async (lease: Lease) => {
      lease.check();
      const left: number = lease.remainingMs();
      await fence.inTransaction(pool, 'inventory-service:sku:123', lease.fencingToken, async (db) => {
        await db.query('UPDATE stock SET quantity = quantity - 1 WHERE sku = $1', ['123']);
      });
      void left;
      return lease.fencingToken;
    });
  const status: LockStatus = await client.status('inventory-service:sku:123');
  void status.waiters.length;
  return token;
}

export async function errors(client: Client): Promise<string> {
  try {
    await using lease = await client.acquire('k', { waitMs: 0, onLost: (l) => console.warn(l.lostReason?.code) });
    lease.signal.addEventListener('abort', () => undefined);
    return lease.state;
  } catch (e) {
    if (e instanceof LockHeldError) return `held by ${e.owner}, retry in ${e.retryAfterMs} ms`;
    if (e instanceof RequestFinishedError) return e.outcome ?? '';
    if (e instanceof UnavailableError || e instanceof LeaseLostError) return e.message;
    if (e instanceof StaleTokenError) return `${e.presentedToken} < ${e.storedToken}`;
    if (e instanceof ServiceError) return e.code;
    throw e;
  }
}

export async function renewShards(client: Client, leases: Lease[]): Promise<string[]> {
  const outcomes: RenewOutcome[] = await client.renewAll(leases, { signal: AbortSignal.timeout(5000) });
  return outcomes.map((o) => {
    if (o.renewed) return `${o.lease.key} until ${o.expiresAt} (${o.validForMs} ms)`;
    if (o.lost) return `${o.lease.key} lost: ${o.error?.message}`;
    return `${o.lease.key} not renewed: ${o.error instanceof ServiceError ? o.error.code : o.error?.message}`;
  });
}
