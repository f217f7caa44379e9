// What needs no lock service: the exact token, the generated modules, the clock, a lease's
// listeners on many manual renewals (against a scripted replica).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { jumpDetectingClock, usable } from '../src/clock.js';
import { exactTopLevelInteger } from '../src/http.js';
import { Client, VERSION } from '../src/index.js';
import { sqlModule, versionModule } from '../scripts/generate.mjs';
import { PACKAGE_ROOT } from './support/common.js';
import { ScriptedReplica, grant } from './support/scripted.js';

test('a fencing token above 2^53 is read exactly, from the answer object itself only', async () => {
  const big = 2n ** 63n - 1n;
  assert.equal(exactTopLevelInteger(`{"fencingToken":${big}}`, 'fencingToken'), big);
  assert.equal(exactTopLevelInteger('{"a":{"fencingToken":1},"b":[{"fencingToken":2}],"s":"\\"fencingToken\\":3",'
    + ' "fencingToken" : 9007199254740993 }', 'fencingToken'), 9007199254740993n);
  assert.throws(() => exactTopLevelInteger('{"fencingToken":1.5}', 'fencingToken'), /not an integer/);
  const r = await ScriptedReplica.start((req) => (req.path.endsWith('/acquire')
    ? { status: 200, body: Buffer.from(`{"lockKey":"conf:k","lockToken":"t-0123456789","fencingToken":${2n ** 53n + 1n},`
      + `"ownerId":"o","expiresAt":${Date.now() + 30_000},"validForMillis":30000}`) }
    : { status: 200, body: { wasHeld: true } }));
  try {
    const lease = await new Client([r.url], { logger: {} }).acquire('conf:k', { waitMs: 0, autoRenew: false });
    assert.equal(lease.fencingToken, 2n ** 53n + 1n);
    await lease.release();
  } finally {
    await r.close();
  }
});

test('the inlined SQL and the version are generated from their sources and up to date', () => {
  assert.equal(readFileSync(join(PACKAGE_ROOT, 'src', 'sql.js'), 'utf8'), sqlModule(), 'npm run generate');
  assert.equal(readFileSync(join(PACKAGE_ROOT, 'src', 'version.js'), 'utf8'), versionModule(), 'npm run generate');
  assert.equal(VERSION, JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version);
  assert.doesNotMatch(readFileSync(join(PACKAGE_ROOT, 'src', 'pg.js'), 'utf8'), /readFileSync|import\.meta\.url/);
});

test('a forward jump of the wall clock that the monotonic clock missed counts as elapsed', () => {
  let mono = 100;
  let wall = 5_000_000;
  const now = jumpDetectingClock(() => mono, () => wall);
  assert.equal(now(), 100);
  mono += 1000; wall += 1000;
  assert.equal(now(), 1100);
  mono += 500; wall += 30_500; // suspended 30 s
  assert.equal(now(), 31_600);
  mono += 1000; wall -= 60_000; // the wall clock set back: nothing
  assert.equal(now(), 32_600);
  assert.equal(usable(10_000), 10_000 - 100 - 2);
});

test('twenty manual renewals leave no listener behind (no MaxListenersExceededWarning)', async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on('warning', onWarning);
  const r = await ScriptedReplica.start((req) => (req.path.endsWith('/acquire') ? grant({ validFor: 30_000 })
    : { status: 200, body: { lockKey: 'conf:k', expiresAt: Date.now() + 30_000, validForMillis: 30_000, wasHeld: true } }));
  try {
    const lease = await new Client([r.url], { logger: {} }).acquire('conf:k', { waitMs: 0, autoRenew: false });
    const caller = new AbortController();
    for (let i = 0; i < 20; i += 1) await lease.renew({ signal: caller.signal });
    for (let i = 0; i < 20; i += 1) await lease.renew();
    await new Promise((resolve) => { setImmediate(resolve); });
    assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map(String), []);
    assert.equal(r.of('renew').length, 40);
    await lease.release();
  } finally {
    process.off('warning', onWarning);
    await r.close();
  }
});
