// Type declarations of @zkfence/client/pg: the PostgreSQL fence on node-postgres (an optional peer
// dependency). Only the methods the fence calls are required of the pool and client.

export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

/** A pg.PoolClient or a connected pg.Client. */
export interface FenceClient extends Queryable {
  getTransactionStatus?(): string | null;
}

/** A pg.Pool (its connections are released after each fenced unit of work). */
export interface FencePool extends Queryable {
  readonly totalCount: number;
  connect(): Promise<FenceClient & { release(err?: Error | boolean): void }>;
}

export interface PgFenceOptions {
  /** The fence table (default zkfence_fence), optionally schema-qualified. */
  table?: string;
  /** Written to the holder column (default pid@host). */
  holder?: string;
}

export declare class PgFence {
  constructor(options?: PgFenceOptions);
  readonly table: string;
  readonly holder: string;
  createIfMissing(db: Queryable): Promise<void>;
  /** In the client's open transaction, before the writes it protects. */
  advance(client: FenceClient, key: string, token: bigint | number): Promise<void>;
  inTransaction<T>(db: FencePool | FenceClient, key: string, token: bigint | number,
    work: (client: FenceClient) => T | Promise<T>): Promise<T>;
  claim(db: FencePool | FenceClient, key: string, token: bigint | number): Promise<void>;
  currentToken(db: Queryable, key: string): Promise<bigint | null>;
}
