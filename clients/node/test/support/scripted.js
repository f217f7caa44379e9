// An HTTP server inside the test that answers as each scenario scripts it and records what it got.
import { createServer } from 'node:http';

export const HANG_UP = Symbol('hang up');
export const NEVER = Symbol('never');

export function problem(status, code, detail = 'scripted', extra = {}) {
  return {
    status,
    body: {
      type: `urn:zkfence:error:${code}`, title: code.toLowerCase(), status, detail, error: code, ...extra,
    },
  };
}

export function grant({
  key = 'conf:k', token = 'lock-token-0123456789abcdef', fencing = 42, validFor, delayMs = 0,
} = {}) {
  const body = {
    lockKey: key, lockToken: token, fencingToken: fencing, ownerId: 'o', expiresAt: Date.now() + 30_000,
  };
  if (validFor !== undefined) body.validForMillis = validFor;
  return { status: 200, body, delayMs };
}

/** `script(request, n)` answers the n-th request (from 0) of its kind (the path's last word). */
export class ScriptedReplica {
  static async start(script) {
    const replica = new ScriptedReplica(script);
    await new Promise((resolve) => { replica.server.listen(0, '127.0.0.1', resolve); });
    replica.url = `http://127.0.0.1:${replica.server.address().port}`;
    return replica;
  }

  constructor(script) {
    this.requests = [];
    this.answered = [];
    this.counts = {};
    this.hanging = new Set();
    this.server = createServer(async (req, res) => {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString();
      const request = {
        method: req.method, path: req.url, body: raw ? JSON.parse(raw) : {}, at: performance.now(), size: bytes.length,
      };
      const kind = req.url.replace(/\/+$/, '').split('/').at(-1);
      this.requests.push(request);
      const n = this.counts[kind] ?? 0;
      this.counts[kind] = n + 1;
      const reply = script(request, n);
      if (reply === NEVER) {
        this.hanging.add(res);
        return;
      }
      if (reply === HANG_UP) {
        req.socket.destroy();
        return;
      }
      if (reply.delayMs) await new Promise((resolve) => { setTimeout(resolve, reply.delayMs); });
      const data = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(JSON.stringify(reply.body));
      res.writeHead(reply.status, {
        'Content-Type': reply.status < 400 ? 'application/json' : 'application/problem+json',
        'Content-Length': data.length,
        ...(reply.headers ?? {}),
      });
      res.end(data);
      this.answered.push(performance.now());
    });
  }

  of(kind) {
    return this.requests.filter((r) => r.path.replace(/\/+$/, '').endsWith(`/${kind}`));
  }

  async close() {
    for (const res of this.hanging) res.socket?.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => { this.server.close(resolve); });
  }
}
