// The System Monitor page in a real browser against a real perfd
// (docs/web.md). One case per process: node browser.mjs CASE
//   ui        add a counter through the dialog, points arrive, views switch,
//             reload from the URL gives the same view, remove by keyboard
//   outage    perfd stops: the page says so; perfd returns: the page recovers,
//             with a gap where it was away
//   screenshot a known view compared with the committed reference
//             (tolerant), saved as an artifact in the build tree
//   limits    perfd's stream and browse endpoints refuse what they must
//   machines  two perfds: the page on A charts A's and B's counters (B's
//             through A, \\127.0.0.1:PORT paths); B stops: only B's counter
//             is a gap; B returns: its values return; a counter of a machine
//             that was not up when the page opened resolves once it is
//   replay    typeperf -f BIN writes a short log; the page in Log mode
//             (log=, b=, e=) shows one point per record of the window with
//             the values typeperf -i prints; perfd refuses bad log names;
//             the Log... dialog lists perfd's logs and shows one, Live goes
//             back; a missing or damaged log says perfd's reason
//   reasons   what perfd says when it refuses reaches the page: a remote
//             machine that is down or refused (and the dialog's lists
//             cleared), a stream refused, no log directory
//   scale     a counter far above 100 gets an automatic scale that puts it
//             on the graph, shown in the legend; a chosen scale stays
import { mkdirSync, readFileSync, writeFileSync, existsSync, statSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Perfd, browser, need, until, sleep } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const artifacts = need('PL_WEB_ARTIFACTS');
mkdirSync(artifacts, { recursive: true });

function check(cond, msg) { if (!cond) throw new Error('check failed: ' + msg); }

const samples = (page) => page.evaluate(() => Number(document.body.dataset.samples || 0));
const legendRows = (page) => page.$$eval('#legend tbody tr[data-key]', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));

async function addThroughDialog(page, object, counter, instance) {
  // The list comes from a Global snapshot: a provider that timed out on a
  // loaded machine (ASan) leaves its object out of that one. Reopen, as a
  // user would, a few times.
  for (let attempt = 0; ; attempt++) {
    await page.click('#add');
    await until('the dialog', () => page.isVisible('#dlg'));
    try {
      await until(`object ${object} listed`, () => page.$eval('#d-object', (s, o) => [...s.options].some((x) => x.value === o), object));
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      await page.keyboard.press('Escape');
      await sleep(1000);
    }
  }
  await page.selectOption('#d-object', object);
  await until(`counter ${counter} listed`, () => page.$eval('#d-counters', (s, c) => [...s.options].some((x) => x.value === c), counter));
  await page.selectOption('#d-counters', counter);
  const explain = await page.textContent('#d-explain');
  check(explain.startsWith(counter + ':') && explain.length > counter.length + 8, `explain text shown for ${counter}: "${explain}"`);
  if (instance !== undefined) {
    await until(`instance ${instance} listed`, () => page.$eval('#d-instances', (s, i) => [...s.options].some((x) => x.value === i), instance));
    await page.selectOption('#d-instances', instance);
  }
  await page.click('#d-add');
  check((await page.textContent('#d-error')) === '', 'no error after Add');
  await page.keyboard.press('Escape');
  await until('the dialog closed', async () => !(await page.isVisible('#dlg')));
}

async function caseUi() {
  const d = new Perfd();
  const b = await browser();
  try {
    await d.start();
    const page = await b.ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // A resource that fails (a 404 favicon) is a console error.
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.goto(d.url + '/');
    check(await page.isVisible('#empty'), 'an empty page says how to start');
    // The icon is in the page (no request, nothing from another host).
    check((await page.getAttribute('link[rel=icon]', 'href') || '').startsWith('data:image/svg+xml,'), 'an inline icon');
    await sleep(1000);
    check(consoleErrors.length === 0, 'no failed resource on load: ' + consoleErrors.join('; '));
    check(!d.log.includes('favicon'), 'perfd was not asked for /favicon.ico:\n' + d.log);
    // A faster interval through the settings.
    await page.fill('#interval', '0.25');
    await page.press('#interval', 'Enter');
    await page.locator('#interval').blur();
    await addThroughDialog(page, 'Processor', '% Processor Time', '_Total');
    await until('points arriving', async () => (await samples(page)) >= 4, 15000);
    const rows = await legendRows(page);
    check(rows.length === 1 && rows[0][2] === '% Processor Time' && rows[0][3] === '_Total', 'legend row: ' + JSON.stringify(rows));
    // The rate counter's first sample cannot be computed: a gap, not a zero.
    const first = await page.evaluate(() => [...window.perflibMonitor.store.series.values()][0].raw.slice(0, 2));
    check(first[0] === null || first[1] === null, 'the first rate sample is a gap: ' + JSON.stringify(first));
    await until('a computed value in the legend', async () => /\d/.test((await legendRows(page))[0][7]));
    check(await page.$('#chart canvas') !== null, 'the graph draws on a canvas');

    // Add a memory counter and one process (perfd itself).
    await addThroughDialog(page, 'Memory', 'Available Bytes');
    await addThroughDialog(page, 'Process', 'Working Set', 'perfd');
    await until('three legend rows with values', async () => {
      const r = await legendRows(page);
      return r.length === 3 && r.every((x) => /\d/.test(x[7]));
    }, 15000);

    // Views.
    await page.click('#v-hist');
    await until('histogram shown', async () => (await page.isVisible('#hist')) && !(await page.isVisible('#chart')));
    await until('three bars', async () => (await page.$$('#hist .b')).length === 3);
    await page.keyboard.press('r');
    // the key is handled on the page's own event loop: wait for it (a busy
    // machine delays it), bounded like every other wait here
    await until('report shown by keyboard (r)', async () => page.isVisible('#report'));
    await until('report rows', async () => (await page.textContent('#report')).includes('Available Bytes'));
    check(/\d/.test(await page.textContent('#report td.num')), 'report shows a number');

    // Highlight and a per-counter scale, then the URL carries them.
    await page.click('#legend tbody tr[data-key]');
    await page.keyboard.press('h');
    await page.selectOption('#legend tbody tr[data-key] >> nth=1 >> select', '-3');
    const url = page.url();
    check(url.includes('v=report') && url.includes('hl=') && url.includes('c=-3'), 'URL carries view, highlight, scale: ' + url);

    // Reload: the same view.
    const before = await page.evaluate(() => JSON.stringify({ c: window.perflibMonitor.state.counters, v: window.perflibMonitor.state.view, hl: window.perflibMonitor.state.hl, i: window.perflibMonitor.state.interval }));
    await page.reload();
    await until('points after reload', async () => (await samples(page)) >= 2, 15000);
    const after = await page.evaluate(() => JSON.stringify({ c: window.perflibMonitor.state.counters, v: window.perflibMonitor.state.view, hl: window.perflibMonitor.state.hl, i: window.perflibMonitor.state.interval }));
    check(before === after, `same state after reload:\n${before}\n${after}`);
    check(await page.isVisible('#report'), 'still the report view');
    // Opening the URL in a new page (a shared link) gives the same too.
    const other = await b.ctx.newPage();
    await other.goto(page.url());
    await until('the shared link streams', async () => (await samples(other)) >= 1, 15000);
    check(await other.evaluate(() => window.perflibMonitor.state.counters.length) === 3, 'shared link has 3 counters');
    await other.close();

    // Back to the graph; remove the selected counter with the keyboard.
    await page.keyboard.press('g');
    await until('graph shown by keyboard (g)', async () => page.isVisible('#chart'));
    await until('legend rebuilt', async () => (await legendRows(page)).length === 3);
    await page.focus('#legend tbody tr[data-key] >> nth=0');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Delete');
    await until('two counters left', async () => (await legendRows(page)).length === 2);
    const left = (await legendRows(page)).map((r) => r[2]);
    check(!left.includes('Available Bytes'), 'removed the second counter: ' + left);
    check(!page.url().includes('Available'), 'the URL forgets it');
    const n0 = await samples(page);
    await until('points keep coming after the removal', async () => (await samples(page)) > n0 + 2, 15000);

    // Pause stops the chart; resume restarts it.
    await page.keyboard.press('p');
    const p0 = await samples(page);
    await sleep(1000);
    check(await samples(page) === p0, 'paused: no new points');
    await page.keyboard.press('p');
    await until('resumed', async () => (await samples(page)) > p0, 5000);
    await page.screenshot({ path: join(artifacts, 'desktop.png') });
    // Phone width: the page still lays out (no horizontal scroll of the
    // body), and every legend row shows Last, Average, Minimum and Maximum
    // on screen under their header, not scrolled off to the side.
    await page.setViewportSize({ width: 390, height: 844 });
    await sleep(300);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.screenshot({ path: join(artifacts, 'phone.png'), fullPage: true });
    check(overflow <= 2, `no horizontal overflow at phone width (${overflow} px)`);
    await until('legend values at phone width', async () => (await legendRows(page)).every((r) => /\d/.test(r[7])), 5000);
    const narrow = await page.evaluate(() => {
      const W = window.innerWidth;
      const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, r: r.right, w: r.width, h: r.height }; };
      const seen = (el) => { const b = box(el); return b.w > 0 && b.h > 0 && b.l >= 0 && b.r <= W + 0.5 && getComputedStyle(el).visibility !== 'hidden'; };
      const heads = [...document.querySelectorAll('#legend thead th')].filter((th) => seen(th)).map((th) => th.textContent);
      const rows = [...document.querySelectorAll('#legend tbody tr[data-key]')].map((tr) =>
        [...tr.cells].slice(7, 11).map((td) => ({ text: td.textContent, seen: seen(td), ...box(td) })));
      const lg = document.getElementById('legend');
      return { W, heads, rows, scroll: lg.scrollWidth - lg.clientWidth };
    });
    check(['Last', 'Average', 'Minimum', 'Maximum'].every((h) => narrow.heads.includes(h)),
      'the statistics headers are on screen at 390 px: ' + JSON.stringify(narrow.heads));
    check(narrow.rows.length === 2 && narrow.rows.every((r) => r.every((c) => c.seen && /\d/.test(c.text))),
      'Last/Average/Minimum/Maximum on screen in every row at 390 px: ' + JSON.stringify(narrow));
    check(narrow.scroll <= 1, `the legend does not scroll sideways (${narrow.scroll} px)`);
    check(errors.length === 0, 'no page errors: ' + errors.join('; '));
  } finally {
    await b.close();
    await d.stop();
    d.cleanup();
  }
}

async function caseOutage() {
  const d = new Perfd();
  const b = await browser();
  try {
    await d.start();
    const page = await b.ctx.newPage();
    const hash = '#v=graph&i=250&w=100&y=0,100&c=~~' + encodeURIComponent('\\Processor(_Total)\\% Processor Time');
    await page.goto(d.url + '/' + hash);
    await until('points', async () => (await samples(page)) >= 3, 15000);
    check(await page.isHidden('#status'), 'no message while connected');
    const port = d.port;
    await d.stop();
    await until('the lost-connection message', async () => (await page.isVisible('#status')) &&
      (await page.textContent('#status')).includes('Lost the connection'), 10000);
    check(await page.evaluate(() => document.body.dataset.conn) === 'lost', 'conn marked lost');
    await page.screenshot({ path: join(artifacts, 'outage.png') });
    await d.start(port);
    const n0 = await samples(page);
    await until('recovery', async () => (await page.evaluate(() => document.body.dataset.conn)) === 'open' &&
      (await samples(page)) > n0 + 1, 20000);
    const gap = await page.evaluate(() => [...window.perflibMonitor.store.series.values()][0].raw.some((v, i, a) => v === null && i > 2));
    check(gap, 'the time perfd was away is a gap');
    await until('the message goes', async () => await page.isHidden('#status'), 6000);
  } finally {
    await b.close();
    await d.stop();
    d.cleanup();
  }
}

// Compare two PNGs in the page: mean absolute difference per 8x8 block (0-255).
async function compare(page, a, b) {
  return page.evaluate(async ([pa, pb]) => {
    const load = (s) => new Promise((res, rej) => { const i = new Image(); i.onload = () => res(i); i.onerror = rej; i.src = 'data:image/png;base64,' + s; });
    const [ia, ib] = await Promise.all([load(pa), load(pb)]);
    if (ia.width !== ib.width || ia.height !== ib.height) return { sizeDiffers: true, worst: 255, mean: 255 };
    const px = (img) => { const c = document.createElement('canvas'); c.width = img.width; c.height = img.height; const g = c.getContext('2d'); g.drawImage(img, 0, 0); return g.getImageData(0, 0, c.width, c.height).data; };
    const A = px(ia), B = px(ib), W = ia.width, H = ia.height;
    let worst = 0, sum = 0, blocks = 0, bad = 0;
    for (let by = 0; by < H; by += 8) for (let bx = 0; bx < W; bx += 8) {
      let d = 0, n = 0;
      for (let y = by; y < Math.min(H, by + 8); y++) for (let x = bx; x < Math.min(W, bx + 8); x++) {
        const o = (y * W + x) * 4;
        d += (Math.abs(A[o] - B[o]) + Math.abs(A[o + 1] - B[o + 1]) + Math.abs(A[o + 2] - B[o + 2])) / 3; n++;
      }
      const m = d / n; sum += m; blocks++; if (m > worst) worst = m; if (m > 40) bad++;
    }
    return { worst, mean: sum / blocks, badFraction: bad / blocks };
  }, [a.toString('base64'), b.toString('base64')]);
}

async function caseScreenshot() {
  const d = new Perfd();
  const b = await browser();
  try {
    await d.start();
    const page = await b.ctx.newPage();
    await page.setViewportSize({ width: 900, height: 700 });
    const c = (s, col, p) => `&c=${s}~${encodeURIComponent(col)}~${encodeURIComponent(p)}`;
    const hash = '#v=graph&i=1000&w=100&y=0,100&p=1' + c('', '#e6194b', '\\Processor(_Total)\\% Processor Time') +
      c('', '#0a58ca', '\\Memory\\% Committed Bytes In Use') + c('0', '#3cb44b', '\\System\\Processor Queue Length');
    await page.goto(d.url + '/' + hash);
    await until('meta for 3 counters', async () => (await page.evaluate(() => document.body.dataset.meta)) === '3', 15000);
    await page.evaluate(() => window.perflibMonitor.fill(3, 100, 1, 1767225600));  // 2026-01-01T00:00:00Z
    await sleep(300);
    const shot = await page.locator('#chart').screenshot({ path: join(artifacts, 'graph.png') });
    const refPath = join(here, 'reference', 'graph.png');
    if (process.env.PL_WEB_UPDATE_REFERENCE === '1') {
      mkdirSync(dirname(refPath), { recursive: true });
      writeFileSync(refPath, shot);
      console.log('wrote ' + refPath);
    }
    check(existsSync(refPath), 'reference image ' + refPath);
    const ref = readFileSync(refPath);
    const same = await compare(page, shot, ref);
    console.log('known view vs reference: ' + JSON.stringify(same));
    // Tolerant: fonts and anti-aliasing may move a few pixels, not lines.
    const matches = (r) => !r.sizeDiffers && r.mean < 1.5 && r.badFraction < 0.005;
    check(matches(same), 'the known view matches the reference: ' + JSON.stringify(same));
    // The comparison can fail: another vertical range must not pass.
    await page.evaluate(() => { window.perflibMonitor.state.ymax = 200; });
    await page.evaluate(() => window.perflibMonitor.fill(3, 100, 1, 1767225600));
    await sleep(300);
    const changed = await page.locator('#chart').screenshot({ path: join(artifacts, 'graph-changed.png') });
    const diff = await compare(page, changed, ref);
    console.log('changed view vs reference: ' + JSON.stringify(diff));
    check(!matches(diff), 'a changed view does not match the reference: ' + JSON.stringify(diff));
  } finally {
    await b.close();
    await d.stop();
    d.cleanup();
  }
}

async function caseLimits() {
  const d = new Perfd();
  try {
    await d.start();
    const u = d.url;
    const status = async (path) => (await fetch(u + path)).status;
    check(await status('/v1/stream') === 400, 'a stream without counters is refused');
    check(await status('/v1/stream?i=5&c=%5CMemory%5CAvailable%20Bytes') === 400, 'an interval under 100 ms is refused');
    check(await status('/v1/stream?i=abc&c=x') === 400, 'a bad interval is refused');
    const many = Array.from({ length: 65 }, (_, i) => 'c=' + encodeURIComponent(`\\Memory\\Available Bytes#${i}`)).join('&');
    check(await status('/v1/stream?' + many) === 400, '65 counters are refused');
    check(await status('/v1/browse/object') === 400, 'browse without object is refused');
    check(await status('/v1/browse/object?object=No%20Such%20Object') === 404, 'an unknown object is 404');
    check(await status('/v1/browse/objects?machine=bad%20name') === 400, 'a bad machine name is refused');
    const objs = await (await fetch(u + '/v1/browse/objects')).json();
    check(objs.objects.some((o) => o.name === 'Processor' && o.explain.length > 0), 'objects with explain text');
    const mem = await (await fetch(u + '/v1/browse/object?object=Memory')).json();
    check(!mem.has_instances && mem.counters.some((c) => c.name === 'Available Bytes' && c.explain), 'Memory counters with explain');
    const proc = await until('Process browsed', async () => {
      const r = await fetch(u + '/v1/browse/object?object=Process');
      return r.ok && (await r.json());
    }, 20000, 500);
    check(proc.has_instances && proc.instances.includes('perfd'), 'Process instances include perfd');
    // A stream: meta first, then samples with a gap for a bad counter.
    const ac = new AbortController();
    const r = await fetch(u + '/v1/stream?i=200&c=' + encodeURIComponent('\\Memory\\Available Bytes') + '&c=' + encodeURIComponent('\\No Such\\Thing'), { signal: ac.signal });
    check(r.status === 200 && r.headers.get('content-type').startsWith('text/event-stream'), 'stream answers as event-stream');
    const rd = r.body.getReader();
    let text = '';
    const end = Date.now() + 10000;
    while ((text.match(/event: sample/g) || []).length < 3 && Date.now() < end) {
      const { value, done } = await Promise.race([rd.read(), sleep(5000).then(() => ({ done: true }))]);
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    ac.abort();
    const ev = text.split('\n\n').filter((x) => x.includes('data:')).map((x) => ({ name: /event: (\w+)/.exec(x)[1], data: JSON.parse(/data: (.*)/.exec(x)[1]) }));
    check(ev[0].name === 'meta' && ev[0].data.counters.length === 2, 'meta first: ' + text.slice(0, 300));
    check(ev[0].data.counters[0].ok && !ev[0].data.counters[1].ok && ev[0].data.counters[1].error.startsWith('PDH_'), 'meta says which counter failed');
    const s = ev.filter((e) => e.name === 'sample');
    check(s.length >= 3 && s.every((e) => typeof e.data.v[0] === 'number' && e.data.v[1] === null), 'samples: value and gap');
    // The schedule never bursts to catch up: sample k goes out no earlier
    // than its slot, k x 200 ms after the first's (re-anchored when it fell
    // a whole interval behind). `t` is the time of the snapshot a sample was
    // computed from, which may be up to snapshot_max_age_ms (100 ms) older
    // than its slot, and the first may itself be up to 200 ms late; so one
    // gap can be short (a late sample, then one in its own slot: 323 then
    // 77 ms was seen under load), but the span of n samples is at least
    // (n - 1) x 200 - 300 ms. A catch-up burst would put them ms apart.
    const gaps = s.slice(1).map((e, i) => e.data.t - s[i].data.t);
    const span = s[s.length - 1].data.t - s[0].data.t;
    check(gaps.every((g) => g >= 0 && g <= 5000) && span >= (s.length - 1) * 200 - 300,
      `samples in their 200 ms slots, no burst: gaps ${gaps}, span ${span}`);
    // At most 16 streams at once. perfd allows 8 connections per client
    // address, so they come from 127.0.0.2..5 (4 each) and the 17th from .6.
    const open = (from) => new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: d.port, localAddress: from, timeout: 5000,
        path: '/v1/stream?i=200&c=' + encodeURIComponent('\\Memory\\Available Bytes') }, (res) => resolve({ req, res }));
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
    });
    // Streams of earlier requests end at their next tick (200 ms here) after
    // their client left: try a few times until exactly 16 fit.
    await sleep(500);
    let held = [];
    let codes = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      held = [];
      for (let i = 0; i < 17; i++) held.push(await open(`127.0.0.${2 + (i >> 2)}`));
      codes = held.map((h) => h.res.statusCode);
      if (codes.slice(0, 16).every((c) => c === 200)) break;
      for (const h of held) h.req.destroy();
      await sleep(2000);
    }
    check(codes.slice(0, 16).every((c) => c === 200), '16 streams accepted: ' + codes);
    check(codes[16] === 503, `the 17th stream is refused (${codes[16]})`);
    for (const h of held) h.req.destroy();
    await until('streams released once their clients left', async () => {
      const h = await open('127.0.0.7');
      h.req.destroy();
      return h.res.statusCode === 200;
    }, 10000, 300);
  } finally {
    await d.stop();
    d.cleanup();
  }
}

async function caseMachines() {
  const a = new Perfd();
  const bd = new Perfd();
  const c = new Perfd();
  const b = await browser();
  try {
    // A reaches only the machines its remote_config lists (issue 23): B, and
    // C's port (C comes up later).
    await bd.start();
    const cport = await (async () => { await c.start(); const p = c.port; await c.stop(); return p; })();
    const conf = join(a.dir, 'remote.conf');
    writeFileSync(conf, `timeout_ms = 3000\n[127.0.0.1:${bd.port}]\n[127.0.0.1:${cport}]\n`);
    a.extra = ['--set', `remote_config=${conf}`];
    await a.start();
    const status = async (path) => (await fetch(a.url + path)).status;
    check(await status(`/v1/browse/objects?machine=127.0.0.1:${a.port}`) === 403, 'a machine not listed: 403');
    check(await status('/v1/stream?c=' + encodeURIComponent('\\\\192.0.2.1\\System\\Processes')) === 403,
      'a stream for a machine not listed: 403');
    const page = await b.ctx.newPage();
    await page.goto(a.url + '/#i=250');
    // B's object list through A, with B named in the dialog's Computer field.
    await page.click('#add');
    await page.fill('#d-machine', `127.0.0.1:${bd.port}`);
    await page.press('#d-machine', 'Tab');
    await until('B\'s objects', () => page.$eval('#d-object', (s) => [...s.options].some((x) => x.value === 'Memory')));
    await page.selectOption('#d-object', 'Memory');
    await until('B\'s Memory counters', () => page.$eval('#d-counters', (s) => [...s.options].some((x) => x.value === 'Available Bytes')));
    await page.selectOption('#d-counters', 'Available Bytes');
    await page.click('#d-add');
    await page.fill('#d-machine', '');
    await page.press('#d-machine', 'Tab');
    await until('A\'s objects', () => page.$eval('#d-object', (s) => s.options.length > 3));
    await page.selectOption('#d-object', 'Memory');
    await until('A\'s Memory counters', () => page.$eval('#d-counters', (s) => [...s.options].some((x) => x.value === 'Committed Bytes')));
    await page.selectOption('#d-counters', 'Committed Bytes');
    await page.click('#d-add');
    await page.keyboard.press('Escape');
    const remote = `127.0.0.1:${bd.port}`;
    await until('both machines with values', async () => {
      const r = await legendRows(page);
      return r.length === 2 && r.some((x) => x[6] === remote && /\d/.test(x[7])) && r.some((x) => x[6] !== remote && /\d/.test(x[7]));
    }, 15000);
    check(page.url().includes(encodeURIComponent(`\\\\${remote}\\Memory`)), 'the URL names B: ' + page.url());
    // B goes: only B's counter becomes a gap.
    const bport = bd.port;
    await bd.stop();
    await until('B\'s counter is a gap, A\'s is not', async () => {
      const r = await legendRows(page);
      return r.some((x) => x[6] === remote && x[7] === '\u2014') && r.some((x) => x[6] !== remote && /\d/.test(x[7]));
    }, 15000);
    check(await page.isHidden('#status'), 'no connection banner: A is still there');
    await bd.start(bport);
    await until('B\'s values return', async () => (await legendRows(page)).some((x) => x[6] === remote && /\d/.test(x[7])), 20000);
    // A machine that is not up yet: an error row, then values once it is.
    const cpath = `\\\\127.0.0.1:${cport}\\System\\Processes`;
    await page.goto(a.url + '/#i=250&c=~~' + encodeURIComponent(cpath));
    await until('the refused counter is listed with its reason', async () =>
      (await page.textContent('#legend tbody')).includes('PDH_CSTATUS_NO_MACHINE'), 15000);
    await c.start(cport);
    await until('it resolves once its machine is up', async () => {
      const r = await legendRows(page);
      return r.length === 1 && /\d/.test(r[0][7]);
    }, 30000, 200);
  } finally {
    await b.close();
    for (const d of [a, bd, c]) { await d.stop(); d.cleanup(); }
  }
}

// perfd's own answer to a request, as the page should show it:
// "STATUS TEXT: reason".
async function answer(url) {
  const r = await fetch(url);
  return { status: r.status, text: `${r.status} ${r.statusText}: ${(await r.text()).trim()}` };
}

const dialogLists = (page) => page.evaluate(() => ['d-object', 'd-counters', 'd-instances'].map((id) => document.getElementById(id).options.length));

async function caseReasons() {
  const d = new Perfd();
  const gone = new Perfd();  // a machine that is down: a port nothing listens on
  const b = await browser();
  try {
    await gone.start();
    const goneAt = `127.0.0.1:${gone.port}`;
    await gone.stop();
    await d.start();
    const page = await b.ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(d.url + '/#i=250');
    // The local lists first, then a machine that fails: perfd's status and
    // reason are shown and nothing of this machine stays to be added under
    // that one's name.
    await page.click('#add');
    await until('local objects', async () => (await dialogLists(page))[0] > 3 && (await dialogLists(page))[1] > 0);
    const machines = [
      [goneAt, 'a machine that is down'],
      ['bad name', 'a machine name perfd refuses'],
    ];
    for (const [m, what] of machines) {
      const want = await answer(`${d.url}/v1/browse/objects?machine=${encodeURIComponent(m)}`);
      check(want.status >= 400 && want.text.length > 20, `perfd refuses ${what} with a reason: ${want.text}`);
      await page.fill('#d-machine', m);
      await page.press('#d-machine', 'Tab');
      await until(`the reason for ${what}`, async () => (await page.textContent('#d-error')).includes(want.text), 15000);
      const err = await page.textContent('#d-error');
      check(err.startsWith(`Cannot list the objects of ${m}: ${want.status} `), `the dialog names the machine and the status: ${err}`);
      check((await dialogLists(page)).every((n) => n === 0), `the lists are empty for ${what}: ${await dialogLists(page)}`);
      await page.click('#d-add');
      check(await page.evaluate(() => window.perflibMonitor.state.counters.length) === 0, `nothing added for ${what}`);
      check((await page.textContent('#d-error')).includes(want.text), 'the reason stays after Add');
      if (m === goneAt) await page.screenshot({ path: join(artifacts, 'reasons-dialog.png') });
    }
    // Back to this machine: its lists return.
    await page.fill('#d-machine', '');
    await page.press('#d-machine', 'Tab');
    await until('local lists again', async () => (await dialogLists(page))[0] > 3 && (await page.textContent('#d-error')) === '');
    await page.keyboard.press('Escape');

    // A stream perfd refuses (a control character in a path: 400): its
    // reason above the chart, no retry loop, the counter listed to remove.
    const badPath = '\\Memory\\Available\u0001Bytes';
    const want = await answer(`${d.url}/v1/stream?c=${encodeURIComponent(badPath)}`);
    check(want.status === 400, 'perfd refuses the stream: ' + want.text);
    await page.goto(d.url + '/#i=250&c=~~' + encodeURIComponent(badPath));
    await until('the refusal shown', async () => (await page.isVisible('#status')) &&
      (await page.textContent('#status')).includes(`perfd refused the counters: ${want.text}`), 10000);
    check(await page.evaluate(() => document.body.dataset.conn) === 'refused', 'marked refused, not lost');
    check(!(await page.textContent('#status')).includes('retrying'), 'a refusal is not retried');
    await page.screenshot({ path: join(artifacts, 'reasons-stream.png') });
    await page.click('#legend tbody tr.bad button');
    await until('the refused counter removed', async () => (await page.evaluate(() => window.perflibMonitor.state.counters.length)) === 0 &&
      (await page.isVisible('#empty')));

    // No log directory: the Log... dialog says so, with perfd's reason.
    const logs = await answer(`${d.url}/v1/logs`);
    check(logs.status === 404 && /log_dir/.test(logs.text), 'no log_dir: /v1/logs is 404 naming log_dir: ' + logs.text);
    await page.click('#logs');
    await until('the Log dialog says why', async () => (await page.textContent('#l-error')).includes(logs.text), 5000);
    await page.keyboard.press('Escape');
    check(errors.length === 0, 'no page errors: ' + errors.join('; '));
  } finally {
    await b.close();
    await d.stop();
    d.cleanup();
    gone.cleanup();
  }
}

async function caseScale() {
  const d = new Perfd();
  const b = await browser();
  try {
    await d.start();
    const page = await b.ctx.newPage();
    const big = '\\Memory\\Available Bytes';
    const pct = '\\Processor(_Total)\\% Processor Time';
    await page.goto(d.url + '/#i=250&y=0,100&c=~~' + encodeURIComponent(big) + '&c=~~' + encodeURIComponent(pct));
    // What the legend shows and what the graph draws: the scale of each row
    // (its select's value and visible text) and the window's extremes.
    const look = () => page.evaluate(() => {
      const m = window.perflibMonitor;
      return [...document.querySelectorAll('#legend tbody tr[data-key]')].map((tr) => {
        const s = m.store.series.get(tr.dataset.key);
        const sel = tr.querySelector('select');
        const vals = s.raw.filter((v) => v !== null);
        return { path: s.path, value: sel.value, text: sel.selectedOptions[0].textContent, scale: m.scaleOf(tr.dataset.key),
          max: Math.max(...vals), min: Math.min(...vals), drawn: m.drawn(tr.dataset.key).filter((v) => v !== null) };
      });
    });
    const rowOf = async (p) => (await look()).find((r) => r.path === p);
    await until('values of both', async () => { const r = await look(); return r.length === 2 && r.every((x) => x.drawn.length >= 2); }, 15000);
    await sleep(600);  // the scale follows the statistics (refreshed every 250 ms)
    let r = await rowOf(big);
    check(r.max > 1000, `Available Bytes is far above 100 (${r.max})`);
    check(r.value === 'auto', 'its scale is automatic: ' + JSON.stringify(r));
    // On the graph: every drawn point within 0..100, and the scale the
    // largest power of ten that does it (not squashed to the floor).
    const inside = (x, lo, hi) => x.drawn.every((v) => v >= lo && v <= hi);
    check(inside(r, 0, 100), `drawn within 0..100 at scale 10^${r.scale}: ${Math.max(...r.drawn)}`);
    check(r.max * 10 ** (r.scale + 1) > 100, `the largest scale that fits (10^${r.scale}, max ${r.max})`);
    const shown = (e) => (Math.abs(e) > 3 ? `1e${e}` : String(10 ** e));
    check(r.text === `${shown(r.scale)} auto`, `the legend shows the scale it chose: "${r.text}"`);
    // A percentage keeps its own scale (1).
    const p = await rowOf(pct);
    check(p.value === 'auto' && p.scale === 0 && p.text === '1 auto', 'a percentage stays at 1: ' + JSON.stringify(p));
    await page.screenshot({ path: join(artifacts, 'scale.png') });
    // A taller range: the scale follows (ten times larger).
    await page.fill('#ymax', '1000');
    await page.press('#ymax', 'Enter');
    await page.locator('#ymax').blur();
    await until('the scale follows the range', async () => (await rowOf(big)).scale === r.scale + 1, 5000);
    r = await rowOf(big);
    check(inside(r, 0, 1000), 'drawn within 0..1000');
    // A scale chosen in the legend stays, even off the graph.
    await page.selectOption(`#legend tbody tr[data-key="${big.replace(/\\/g, '\\\\')}"] select`, '0');
    await until('the chosen scale', async () => { const x = await rowOf(big); return x.value === '0' && x.scale === 0; }, 5000);
    const urlCounters = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).getAll('c');
    check(urlCounters()[0] === '0~~' + big, 'the URL keeps the chosen scale: ' + urlCounters());
    await sleep(600);
    check((await rowOf(big)).scale === 0, 'a chosen scale is not changed automatically');
    // Back to automatic from the list: empty in the URL.
    await page.selectOption(`#legend tbody tr[data-key="${big.replace(/\\/g, '\\\\')}"] select`, 'auto');
    await until('automatic again', async () => (await rowOf(big)).scale === r.scale, 5000);
    check(urlCounters()[0] === '~~' + big, 'the URL says automatic: ' + urlCounters());
  } finally {
    await b.close();
    await d.stop();
    d.cleanup();
  }
}

// typeperf -i's CSV rows: [unix ms, value or null, ...] (TZ=UTC).
function parseCsv(text) {
  const rows = [];
  for (const line of text.split(/\r?\n/)) {
    const f = [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    const m = /^(\d\d)\/(\d\d)\/(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{3})$/.exec(f[0] || '');
    if (!m) continue;
    const t = Date.UTC(+m[3], +m[1] - 1, +m[2], +m[4], +m[5], +m[6], +m[7]);
    rows.push([t, ...f.slice(1).map((x) => (x.trim() === '' ? null : Number(x)))]);
  }
  return rows;
}

const near = (a, b) => a === null ? b === null : b !== null && Math.abs(a - b) <= 1e-4 + 1e-6 * Math.abs(b);

async function caseReplay() {
  const typeperf = need('TYPEPERF');
  const d = new Perfd();
  const logs = join(d.dir, 'logs');
  mkdirSync(logs);
  d.extra = ['--set', `log_dir=${logs}`];
  const env = { ...process.env, PERFLIB_REGISTRY: join(d.dir, 'perflib.db'), TZ: 'UTC' };
  const paths = ['\\Memory\\Available Bytes', '\\Processor(_Total)\\% Processor Time'];
  const file = join(logs, 'short.blg');
  execFileSync(typeperf, [...paths, '-si', '1', '-sc', '6', '-f', 'BIN', '-o', file], { env, timeout: 60000, stdio: 'ignore' });
  const rows = parseCsv(execFileSync(typeperf, ['-i', file, ...paths], { env, timeout: 60000, encoding: 'utf8' }));
  check(rows.length === 6, `typeperf -i prints the 6 records (got ${rows.length})`);
  const b = await browser();
  try {
    await d.start();
    // Names that are not a plain file in the log directory are refused.
    for (const [name, code] of [['', 400], ['..', 400], ['.', 400], ['/etc/passwd', 400], ['a/../short.blg', 400],
      ['.hidden', 400], ['missing.blg', 404]]) {
      const r = await fetch(`${d.url}/v1/replay?log=${encodeURIComponent(name)}&c=${encodeURIComponent(paths[0])}`);
      check(r.status === code, `log=${JSON.stringify(name)} answers ${code} (got ${r.status})`);
    }
    check((await fetch(`${d.url}/v1/replay?log=short.blg&b=5&e=4&c=x`)).status === 400, 'b > e refused');
    // The window: records 1..4 of 0..5 (times with a margin well under the 1 s spacing).
    const w = rows.slice(1, 5);
    const hash = `#v=graph&y=0,100&log=short.blg&b=${w[0][0] - 200}&e=${w[3][0] + 200}` +
      paths.map((p) => '&c=~~' + encodeURIComponent(p)).join('');
    const page = await b.ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(d.url + '/' + hash);
    await until('the window loaded', () => page.evaluate(() => document.body.dataset.replay === 'done'), 20000);
    const got = await page.evaluate(() => {
      const m = window.perflibMonitor;
      return { t: m.store.t, s: [...m.store.series.values()].map((s) => [s.path, s.raw]) };
    });
    check(got.t.length === w.length, `one point per record in the window: ${got.t.length} == ${w.length}`);
    got.t.forEach((t, i) => check(Math.abs(t * 1000 - w[i][0]) <= 1, `point ${i} at the record's time (${t * 1000} vs ${w[i][0]})`));
    paths.forEach((p, k) => {
      const s = got.s.find((x) => x[0] === p);
      check(s, `a series for ${p}`);
      s[1].forEach((v, i) => check(near(v, w[i][k + 1]), `${p} point ${i}: page ${v}, typeperf -i ${w[i][k + 1]}`));
    });
    // The statistics are over the window: the legend's minimum and maximum of % Processor Time.
    const cpu = w.map((r) => r[2]).filter((v) => v !== null);
    const f3 = (v) => v.toLocaleString('en-US', { maximumFractionDigits: 3 });
    await until('legend statistics', async () => {
      const row = (await legendRows(page)).find((r) => r.join(' ').includes('% Processor Time'));
      const text = row ? row.join(' ') : '';
      return text.includes(f3(Math.min(...cpu))) && text.includes(f3(Math.max(...cpu)));
    }, 5000);
    await page.keyboard.press('r');
    await until('the report view', () => page.evaluate(() => document.body.dataset.view === 'report'));
    // Loaded once: no reconnection, no banner, nothing more arrives.
    await sleep(2500);
    check(await page.evaluate(() => window.perflibMonitor.store.t.length) === w.length, 'no more points after the end');
    check(await page.isHidden('#status'), 'no banner in Log mode');
    check(errors.length === 0, 'no page errors: ' + errors.join('; '));
    await page.screenshot({ path: join(artifacts, 'replay.png') });

    // perfd lists its logs (/v1/logs): regular files with names /v1/replay
    // takes, newest first; not a log's index, a hidden file, a directory or
    // a symbolic link.
    writeFileSync(join(logs, 'bad.blg'), 'not a counter log\n');
    writeFileSync(join(logs, '.hidden'), 'x');
    mkdirSync(join(logs, 'sub.blg'));
    symlinkSync(file, join(logs, 'link.blg'));
    check(existsSync(file + '.idx'), 'typeperf wrote an index beside the log');
    const listed = await (await fetch(`${d.url}/v1/logs`)).json();
    check(JSON.stringify(listed.logs.map((l) => l.name)) === '["bad.blg","short.blg"]' && !listed.truncated,
      'the logs listed, newest first: ' + JSON.stringify(listed));
    check(listed.logs[1].bytes === statSync(file).size && Math.abs(listed.logs[1].modified - statSync(file).mtimeMs) < 2,
      'size and time of a log: ' + JSON.stringify(listed.logs[1]));

    // Log mode from the toolbar: Log..., pick the log and a window (whole
    // seconds, "To" inclusive), Show; then Live goes back.
    const live = await b.ctx.newPage();
    live.on('pageerror', (e) => errors.push(String(e)));
    await live.goto(d.url + '/#v=graph&i=250' + paths.map((p) => '&c=~~' + encodeURIComponent(p)).join(''));
    await until('live points', async () => (await samples(live)) >= 2, 15000);
    check(await live.isVisible('#logs') && await live.isHidden('#live'), 'a Log... button, no Live button while live');
    await live.click('#logs');
    await until('the logs listed in the dialog', async () =>
      JSON.stringify(await live.$$eval('#l-list option', (os) => os.map((o) => o.value))) === '["bad.blg","short.blg"]', 5000);
    // The page's zone is UTC; Chromium keeps a datetime-local value without
    // ":00" seconds, and Playwright refuses a fill the field rewrites.
    const sec = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace(/:00$/, '');
    const from = Math.floor(w[0][0] / 1000) * 1000, to = Math.floor(w[3][0] / 1000) * 1000 + 999;
    const inWindow = rows.filter((x) => x[0] >= from && x[0] <= to);
    await live.selectOption('#l-list', 'short.blg');
    await live.fill('#l-from', sec(w[0][0]));
    await live.fill('#l-to', sec(w[3][0]));
    await live.screenshot({ path: join(artifacts, 'log-dialog.png') });
    await live.click('#l-open');
    await until('the picked log loaded', () => live.evaluate(() => document.body.dataset.replay === 'done'), 20000);
    const picked = await live.evaluate(() => window.perflibMonitor.store.t.map((t) => Math.round(t * 1000)));
    check(JSON.stringify(picked) === JSON.stringify(inWindow.map((x) => x[0])),
      `the window's records: ${picked} == ${inWindow.map((x) => x[0])}`);
    const hashOf = (pg) => new URLSearchParams(new URL(pg.url()).hash.slice(1));
    const h = hashOf(live);
    check(h.get('log') === 'short.blg' && h.get('b') === String(from) && h.get('e') === String(to), 'the URL names the log and window: ' + live.url());
    check((await live.textContent('#machine')).includes('log short.blg') && await live.isVisible('#live'), 'the title names the log; Live shown');
    await live.click('#live');
    await until('live again', async () => (await live.evaluate(() => document.body.dataset.replay)) === '' &&
      (await live.evaluate(() => window.perflibMonitor.store.t.length)) >= 2, 15000);
    check(!hashOf(live).has('log') && await live.isHidden('#live'), 'the URL forgets the log: ' + live.url());

    // A log perfd cannot replay says why: a damaged one (picked), a missing
    // one (an old link).
    await live.click('#logs');
    await until('listed again', async () => (await live.$$('#l-list option')).length === 2, 5000);
    await live.selectOption('#l-list', 'bad.blg');
    await live.fill('#l-from', '');
    // A "To" on a whole minute (the field's value then has no seconds)
    // still names one second, not the minute.
    await live.fill('#l-to', sec(Date.UTC(2030, 0, 2, 3, 4, 0)));
    await live.click('#l-open');
    check(hashOf(live).get('e') === String(Date.UTC(2030, 0, 2, 3, 4, 0) + 999), 'a To of 03:04:00 ends at 03:04:00.999: ' + live.url());
    await until('the damaged log\'s reason', async () => (await live.evaluate(() => document.body.dataset.replay)) === 'failed' &&
      /^perfd could not replay the log bad\.blg: bad\.blg is not a perflib counter log/.test(await live.textContent('#status')), 10000);
    check(!(await live.textContent('body')).includes(logs), 'the page is not told where perfd keeps its logs');
    await live.screenshot({ path: join(artifacts, 'replay-damaged.png') });
    const missing = await answer(`${d.url}/v1/replay?log=missing.blg&c=${encodeURIComponent(paths[0])}`);
    await live.goto(d.url + '/#log=missing.blg' + paths.map((p) => '&c=~~' + encodeURIComponent(p)).join(''));
    await until('the missing log\'s reason', async () => (await live.evaluate(() => document.body.dataset.replay)) === 'failed' &&
      (await live.textContent('#status')) === `perfd could not replay the log missing.blg: ${missing.text}.`, 10000);
    check(missing.status === 404 && /no such log/.test(missing.text), 'perfd says the log is missing: ' + missing.text);
    check(errors.length === 0, 'no page errors: ' + errors.join('; '));
  } finally {
    await b.close();
    await d.stop();
    d.cleanup();
  }
}

const cases = { replay: caseReplay, ui: caseUi, outage: caseOutage, screenshot: caseScreenshot, limits: caseLimits, machines: caseMachines,
  reasons: caseReasons, scale: caseScale };
const name = process.argv[2];
if (!cases[name]) {
  console.error('usage: browser.mjs ' + Object.keys(cases).join('|'));
  process.exit(2);
}
const watchdog = setTimeout(() => { console.error(`web.${name}: over 150 s, giving up`); process.exit(1); }, 150000);
try {
  await cases[name]();
  console.log(`web.${name}: passed`);
  clearTimeout(watchdog);
  process.exit(0);
} catch (e) {
  console.error(`web.${name}: FAILED: ${e.stack || e}`);
  process.exit(1);
}
