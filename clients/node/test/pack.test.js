// The package as a user gets it: the `npm pack` tarball installed into a fresh folder (with pg, its
// optional peer) runs the quickstart against the real replicas and PostgreSQL.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { APP_KEY, Cluster } from './support/cluster.js';
import { PACKAGE_ROOT } from './support/common.js';
import { Postgres } from './support/postgres.js';

let cluster;
let postgres;
const dir = mkdtempSync(join(tmpdir(), 'zkfence-npm-pack-'));

before(async () => {
  [cluster, postgres] = await Promise.all([Cluster.start(), Postgres.start()]);
});

after(async () => {
  await Promise.all([cluster?.stop(), postgres?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

test('the npm pack tarball installs into a fresh folder, its quickstart runs, and runs bundled into one file', { timeout: 300_000 }, () => {
  const tarball = join(dir, npm(['pack', '--silent', '--pack-destination', dir], PACKAGE_ROOT).trim().split('\n').at(-1));
  const app = join(dir, 'app');
  execFileSync('mkdir', [app]);
  npm(['init', '-y'], app);
  const pgVersion = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).devDependencies.pg;
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `pg@${pgVersion}`], app);
  const installed = join(app, 'node_modules', '@zkfence', 'client');
  assert.ok(existsSync(join(installed, 'types', 'index.d.ts')));
  assert.ok(!existsSync(join(installed, 'test')), 'the tests are not in the package');
  assert.deepEqual(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).dependencies, undefined);
  copyFileSync(join(PACKAGE_ROOT, 'examples', 'quickstart.mjs'), join(app, 'quickstart.mjs'));
  const out = execFileSync('node', ['quickstart.mjs', cluster.a.url, cluster.b.url], {
    cwd: app,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env, ZKFENCE_API_KEY: APP_KEY, PGHOST: '127.0.0.1', PGPORT: String(postgres.port), PGUSER: 'zkfence',
      PGDATABASE: 'postgres',
    },
  });
  assert.match(out, /reserved sku 123 with fencing token \d+/);
  assert.equal(readFileSync(join(installed, 'LICENSE'), 'utf8'), readFileSync(join(PACKAGE_ROOT, '..', '..', 'LICENSE'), 'utf8'));

  // Bundled, as for a Lambda: esbuild makes one file of the quickstart, the installed package and pg;
  // it runs from an empty folder (no node_modules, no SQL files beside it).
  const bundle = join(dir, 'bundle');
  execFileSync('mkdir', [bundle]);
  execFileSync(join(PACKAGE_ROOT, 'node_modules', '.bin', 'esbuild'), ['quickstart.mjs', '--bundle', '--platform=node',
    '--format=esm', '--target=node20', '--external:pg-native', `--outfile=${join(bundle, 'app.mjs')}`, '--log-level=warning',
    "--banner:js=import { createRequire as zkfenceCreateRequire } from 'node:module'; "
    + 'const require = zkfenceCreateRequire(import.meta.url);'], { cwd: app, stdio: 'inherit' });
  assert.deepEqual(readdirSync(bundle), ['app.mjs']);
  const bundled = execFileSync('node', ['app.mjs', cluster.a.url, cluster.b.url], {
    cwd: bundle, encoding: 'utf8', timeout: 120_000, env: {
      ...process.env, ZKFENCE_API_KEY: APP_KEY, PGHOST: '127.0.0.1', PGPORT: String(postgres.port), PGUSER: 'zkfence',
      PGDATABASE: 'postgres', NODE_PATH: '',
    },
  });
  assert.match(bundled, /reserved sku 123 with fencing token \d+/);
});
