// The System Monitor page benchmark (docs/benchmarks.md, docs/web.md).
// Run through bench/run-web.sh, which sets PERFD, TYPEPERF, PL_WEB_NODE_MODULES.
//
// 1. perfd's CPU per connected browser page with 50 counters at 1 Hz:
//    perfd's utime+stime (/proc/PID/stat) over SECONDS with 0, 1 and 5 pages
//    open in Debian's chromium; per page = (cpu(B) - cpu(0)) / B. Side by side:
//    typeperf collecting and printing the same 50 counters at 1 Hz for the same
//    time (the same PDH work in the local command-line tool).
// 2. The page's drawing with 50 series of 10 minutes at 10 Hz (6,000 points
//    each, 300,000 in all): history filled in, then live samples every 100 ms
//    from perfd. Reports the time to redraw after a sample (median, p95),
//    frames per second when it redraws on every animation frame, and
//    sample-to-pixel latency (the sample's collection time to the end of the
//    redraw that shows it).
// Every figure is the median of REPS runs (default 3).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Perfd, browser, browserTicks, need, until, sleep } from '../tests/web/lib.mjs';

const SECONDS = Number(process.env.SECONDS_PER_RUN || 20);
const REPS = Number(process.env.REPS || 3);
const HZ = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;  // /proc/PID/stat ticks

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[(s.length - 1) >> 1] : NaN; };
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN; };
const f = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');

function cpuTicks(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);  // utime, stime (fields 14, 15)
}

async function pick50(url) {
  const out = [];
  for (const [obj, inst] of [['Processor', '_Total'], ['Memory', null], ['System', null], ['PhysicalDisk', '_Total']]) {
    const r = await (await fetch(`${url}/v1/browse/object?object=${encodeURIComponent(obj)}`)).json();
    for (const c of r.counters) {
      if (out.length >= 50) break;
      out.push(`\\${obj}${inst ? `(${inst})` : ''}\\${c.name}`);
    }
  }
  if (out.length < 50) throw new Error(`only ${out.length} counters found`);
  return out;
}

const pageUrl = (url, paths, ms, w) => `${url}/#v=graph&i=${ms}&w=${w}&y=0,100` + paths.map((p) => '&c=~~' + encodeURIComponent(p)).join('');

async function perfdCpu(d, b, paths, pages) {
  const open = [];
  for (let i = 0; i < pages; i++) {
    const p = await b.ctx.newPage();
    await p.goto(pageUrl(d.url, paths, 1000, 100));
    open.push(p);
  }
  for (const p of open) await until('samples', async () => Number(await p.evaluate(() => document.body.dataset.samples || 0)) >= 2, 30000, 200);
  const t0 = cpuTicks(d.proc.pid);
  await sleep(SECONDS * 1000);
  const t1 = cpuTicks(d.proc.pid);
  for (const p of open) await p.close();
  await sleep(1500);  // streams end at their next tick
  return ((t1 - t0) / HZ) / SECONDS * 100;  // % of one CPU
}

function typeperfCpu(paths) {
  return new Promise((resolve, reject) => {
    const args = [...paths, '-si', '1', '-sc', String(SECONDS)].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const sh = spawn('bash', ['-c', `"$TYPEPERF" ${args} >/dev/null; times`], { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    sh.stdout.on('data', (x) => { out += x; });
    sh.on('exit', () => {
      // times: line 2 is the children's "XmY.YYYs XmZ.ZZZs"
      const m = out.trim().split('\n')[1] && out.trim().split('\n')[1].match(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/);
      if (!m) return reject(new Error('cannot read typeperf times: ' + out));
      resolve((Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) / SECONDS * 100);
    });
  });
}

async function frames(d, b, paths, shape) {
  const page = await b.ctx.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(pageUrl(d.url, paths, 100, 6000));
  await until('meta', async () => (await page.evaluate(() => document.body.dataset.meta)) === '50', 30000, 200);
  await until('samples', async () => Number(await page.evaluate(() => document.body.dataset.samples || 0)) >= 3, 30000, 100);
  await page.evaluate((sh) => window.perflibMonitor.fill(50, 6000, 0.1, 0, sh), shape);
  await sleep(1000);
  // Live: redraw after each 10 Hz sample.
  await page.evaluate(() => { const p = window.perflibMonitor.perf; p.drawMs.length = 0; p.latencyMs.length = 0; });
  await sleep(Math.min(SECONDS, 15) * 1000);
  const live = await page.evaluate(() => ({ draw: [...window.perflibMonitor.perf.drawMs], lat: [...window.perflibMonitor.perf.latencyMs], n: window.perflibMonitor.store.t.length }));
  // Stress: a full redraw on every animation frame for 5 s. Wall-clock
  // frames per second depend on how much CPU this (shared) machine gives
  // the browser; the browser's CPU time per frame (all its processes) does
  // not: 1000 / that is the frame rate one free core would sustain.
  const c0 = browserTicks(b.profile);
  const fr = await page.evaluate(() => new Promise((res) => {
    let n = 0;
    const t0 = performance.now();
    const step = () => {
      window.perflibMonitor.redraw();
      n++;
      if (performance.now() - t0 < 5000) requestAnimationFrame(step);
      else res({ n, s: (performance.now() - t0) / 1000 });
    };
    requestAnimationFrame(step);
  }));
  const c1 = browserTicks(b.profile);
  await page.close();
  const r = { drawMed: median(live.draw), drawP95: pct(live.draw, 0.95), latMed: median(live.lat), latP95: pct(live.lat, 0.95),
    fps: fr.n / fr.s, cpuMsPerFrame: ((c1 - c0) / HZ) * 1000 / fr.n, points: live.n };
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [`${shape}_${k}`, v]));
}

const d = new Perfd();
const b = await browser();
try {
  need('TYPEPERF');
  await d.start();
  const paths = await pick50(d.url);
  const runs = [];
  for (let r = 0; r < REPS; r++) {
    const idle = await perfdCpu(d, b, paths, 0);
    const one = await perfdCpu(d, b, paths, 1);
    const five = await perfdCpu(d, b, paths, 5);
    const tp = await typeperfCpu(paths);
    const walk = await frames(d, b, paths, 'walk');
    const wave = await frames(d, b, paths, 'wave');
    runs.push({ idle, one, five, tp, ...walk, ...wave });
    console.error(`run ${r + 1}/${REPS}: ${JSON.stringify(runs[r])}`);
  }
  const m = (k) => median(runs.map((x) => x[k]));
  const per1 = m('one') - m('idle');
  const per5 = (m('five') - m('idle')) / 5;
  console.log(`# System Monitor page benchmark: ${REPS} runs of ${SECONDS} s, medians; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}, ${execFileSync('nproc').toString().trim()} CPUs`);
  console.log('what\tvalue');
  console.log(`perfd idle, % of one CPU\t${f(m('idle'))}`);
  console.log(`perfd with 1 page (50 counters, 1 Hz), %\t${f(m('one'))}`);
  console.log(`perfd with 5 pages, %\t${f(m('five'))}`);
  console.log(`perfd per page, from 1 page, %\t${f(per1)}`);
  console.log(`perfd per page, from 5 pages, %\t${f(per5)}`);
  console.log(`typeperf, same 50 counters at 1 Hz, %\t${f(m('tp'))}`);
  console.log(`ratio perfd per page / typeperf\t${f(per5 / m('tp'))}`);
  for (const sh of ['walk', 'wave']) {
    const k = (x) => m(`${sh}_${x}`);
    const what = sh === 'walk' ? 'noisy lines' : 'smooth fast wave';
    console.log(`page (${what}): points per series\t${k('points')}`);
    console.log(`page (${what}): redraw after a sample, median ms\t${f(k('drawMed'), 1)}`);
    console.log(`page (${what}): redraw after a sample, p95 ms\t${f(k('drawP95'), 1)}`);
    console.log(`page (${what}): continuous redraw, frames per second (wall clock)\t${f(k('fps'), 1)}`);
    console.log(`page (${what}): continuous redraw, browser CPU ms per frame\t${f(k('cpuMsPerFrame'), 1)}`);
    console.log(`page (${what}): frames per second one free core sustains (1000 / CPU ms)\t${f(1000 / k('cpuMsPerFrame'), 1)}`);
    console.log(`page (${what}): sample-to-pixel, median ms\t${f(k('latMed'), 0)}`);
    console.log(`page (${what}): sample-to-pixel, p95 ms\t${f(k('latP95'), 0)}`);
  }
} finally {
  await b.close();
  await d.stop();
  d.cleanup();
}
