// Shared by the browser tests and the page benchmark: a real perfd on
// 127.0.0.1 with a free port, and Debian's chromium driven by playwright-core
// (docs/web.md). Every wait is bounded.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run through ctest or bench/run-web.sh)`);
  return v;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function until(what, fn, ms = 10000, step = 50) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
    await sleep(step);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// perfd in the foreground with its own registry store in a temporary
// directory; resolves once /healthz answers.
export class Perfd {
  constructor() {
    this.bin = need('PERFD');
    this.dir = mkdtempSync(join(tmpdir(), `perfd-web-${process.pid}-`));
    this.port = 0;
    this.proc = null;
    this.log = '';
  }

  get url() { return `http://127.0.0.1:${this.port}`; }

  async start(port) {
    for (let attempt = 0; attempt < 5; attempt++) {
      this.port = port || (await freePort());
      const p = spawn(this.bin, ['--listen', `127.0.0.1:${this.port}`, ...(this.extra || [])], {
        env: { ...process.env, PERFLIB_REGISTRY: join(this.dir, 'perflib.db') },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      this.proc = p;
      let exited = false;
      p.stderr.on('data', (d) => { this.log += d; if (this.log.length > 100000) this.log = this.log.slice(-50000); });
      p.once('exit', () => { exited = true; });
      try {
        await until('perfd /healthz', async () => {
          if (exited) throw new Error('perfd exited: ' + this.log.slice(-500));
          const r = await fetch(this.url + '/healthz');
          return r.ok;
        }, 15000, 100);
        return;
      } catch (e) {
        if (!exited) await this.stop();
        if (port) throw e;  // the port was asked for: no second choice
        if (attempt === 4) throw e;
      }
    }
  }

  async stop() {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode) return;
    const done = new Promise((r) => p.once('exit', (code, sig) => r({ code, sig })));
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 12000);
    const { code, sig } = await done;
    clearTimeout(t);
    this.proc = null;
    // A clean stop: exit 0 and nothing from the sanitizers (ASan/UBSan builds).
    if (code !== 0 || /AddressSanitizer|LeakSanitizer|runtime error:/.test(this.log)) {
      throw new Error(`perfd did not stop cleanly (exit ${code}, signal ${sig}):\n${this.log.slice(-3000)}`);
    }
  }

  cleanup() { rmSync(this.dir, { recursive: true, force: true }); }
}

export async function browser(extraArgs = []) {
  const exe = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(exe)) throw new Error(`${exe} not found: install Debian's chromium (scripts/deps.sh test)`);
  const require = createRequire(join(resolve(need('PL_WEB_NODE_MODULES')), 'x.js'));
  const { chromium } = require('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), `perfd-web-chromium-${process.pid}-`));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: exe,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
    viewport: { width: 1100, height: 800 },
    timezoneId: 'UTC',
    locale: 'en-US',
    timeout: 30000,
  });
  ctx.setDefaultTimeout(10000);
  const close = async () => {
    await ctx.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  };
  return { ctx, close, profile };
}

// utime+stime ticks of every process of this browser (their command lines
// name its profile directory).
export function browserTicks(profile) {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(profile)) continue;
      const st = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch { /* gone meanwhile */ }
  }
  return ticks;
}
