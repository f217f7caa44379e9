// clients/testing/lossy-proxy, driven from the tests: a TCP proxy in front of one replica that
// loses the answer to a chosen request (the replica acted; the client got no answer).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { REPO, awaitTrue } from './common.js';

export class LossyProxy {
  static async start(upstreamUrl) {
    const proxy = new LossyProxy(upstreamUrl);
    const port = await awaitTrue('the proxy listening',
      () => proxy.lines.find((l) => l.startsWith('listening '))?.split(' ')[1]);
    proxy.url = `http://127.0.0.1:${port}`;
    return proxy;
  }

  constructor(upstreamUrl) {
    this.lines = [];
    this.proc = spawn('python3', [join(REPO, 'clients', 'testing', 'lossy-proxy'), upstreamUrl.split('://')[1]],
      { stdio: ['pipe', 'pipe', 'inherit'] });
    createInterface({ input: this.proc.stdout }).on('line', (line) => this.lines.push(line.trim()));
  }

  /** The next request of `kind` reaches the replica; its answer is lost. */
  async drop(kind) {
    this.proc.stdin.write(`drop ${kind}\n`);
    await this.awaitLine(`armed ${kind}`);
  }

  awaitLine(line, timeoutMs = 60_000) {
    return awaitTrue(`the proxy says '${line}'`, () => this.lines.includes(line), timeoutMs);
  }

  async close() {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((resolve) => { this.proc.once('exit', resolve); });
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
