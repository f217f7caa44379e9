// One test per scenario of clients/conformance.json (the implementations are in scenarios/*.js).
import assert from 'node:assert/strict';
import {
  after, before, describe, test,
} from 'node:test';
import { Cluster } from './support/cluster.js';
import { SCENARIOS, V2_SKIP } from './support/conformance.js';
import { Postgres } from './support/postgres.js';
import { batchScripted, batchService } from './scenarios/batch.js';
import { FenceContext, fence } from './scenarios/fence.js';
import { ScriptedContext, scripted } from './scenarios/scripted.js';
import { ServiceContext, service } from './scenarios/service.js';

const IMPLEMENTATIONS = {
  service: { ...service, ...batchService }, scripted: { ...scripted, ...batchScripted }, fence,
};
const TIMEOUT = { timeout: 180_000 };
let cluster;
let postgres;

before(async () => {
  [cluster, postgres] = await Promise.all([Cluster.start(), Postgres.start()]);
});

after(async () => {
  await Promise.all([cluster?.stop(), postgres?.stop()]);
});

test('every implementation names a scenario and every scenario is implemented', () => {
  const ids = new Set(SCENARIOS.map((s) => s.id));
  assert.equal(ids.size, SCENARIOS.length, 'scenario ids are unique');
  for (const [against, impls] of Object.entries(IMPLEMENTATIONS)) {
    for (const id of Object.keys(impls)) assert.ok(ids.has(id), `${against} implementation '${id}' names no scenario`);
  }
  const missing = SCENARIOS.filter((s) => !IMPLEMENTATIONS[s.against]?.[s.id]).map((s) => s.id);
  assert.deepEqual(missing, []);
});

for (const against of ['service', 'scripted', 'fence']) {
  describe(`conformance: ${against}`, () => {
    for (const s of SCENARIOS.filter((x) => x.against === against)) {
      test(`${s.id}: ${s.title}`, TIMEOUT, async (t) => {
        if (s.needs === 'service-v2' && !cluster.v2) {
          t.skip(V2_SKIP);
          return;
        }
        const impl = IMPLEMENTATIONS[against][s.id];
        assert.ok(impl, `conformance scenario '${s.id}' has no implementation in the Node suite`);
        if (against === 'service') {
          await cluster.ensureRunning();
          await impl(new ServiceContext(t, cluster, postgres));
        } else if (against === 'scripted') {
          await impl(new ScriptedContext(t));
        } else {
          await impl(new FenceContext(t, postgres));
        }
      });
    }
  });
}
