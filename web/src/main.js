// System Monitor in the browser (docs/web.md). Values are perfd's formatted
// PDH values; the page only scales them for display (as System Monitor's
// per-counter scale does) and keeps statistics over what it shows.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './style.css';

const PALETTE = ['#e6194b', '#3cb44b', '#0a58ca', '#f58231', '#911eb4', '#0fa3a3', '#d6249f', '#7a9c00',
  '#b8860b', '#00798c', '#9a6324', '#800000', '#2f4f4f', '#808000', '#000075', '#ff4500'];
const MAX_COUNTERS = 64;     // perfd's per-stream limit (docs/web.md)
// Display scales, powers of ten: System Monitor's 10^-7..10^7, widened
// because byte counters of today's machines (tens of GB) need 10^-9 and more.
const MIN_SCALE = -12, MAX_SCALE = 12;
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------ URL state
// #v=graph&i=1000&w=100&y=0,100&p=0&hl=KEY&c=SCALE~COLOR~PATH&c=...
// SCALE: a power of ten, MIN_SCALE..MAX_SCALE; empty: automatic (scaleOf).
// Log mode: &log=NAME&b=UNIX_MS&e=UNIX_MS (a window of a counter log in
// perfd's log directory, loaded once through /v1/replay).
const state = { view: 'graph', interval: 1000, window: 100, ymin: 0, ymax: 100, paused: false, hl: '', log: '', b: '', e: '',
  counters: [] };  // {path, scale (null: counter default), color ('' auto)}

function readUrl() {
  const q = new URLSearchParams(location.hash.slice(1));
  const num = (k, d, lo, hi) => { const v = Number(q.get(k)); return q.has(k) && Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : d; };
  state.view = ['graph', 'hist', 'report'].includes(q.get('v')) ? q.get('v') : 'graph';
  state.interval = num('i', 1000, 100, 3600000);
  state.window = Math.round(num('w', 100, 10, 36000));
  const y = (q.get('y') || '').split(',').map(Number);
  if (y.length === 2 && y.every(Number.isFinite) && y[0] < y[1]) [state.ymin, state.ymax] = y;
  state.paused = q.get('p') === '1';
  state.hl = q.get('hl') || '';
  state.log = q.get('log') || '';
  state.b = /^\d+$/.test(q.get('b') || '') ? q.get('b') : '';
  state.e = /^\d+$/.test(q.get('e') || '') ? q.get('e') : '';
  state.counters = [];
  for (const c of q.getAll('c')) {
    const m = /^(-?\d*)~(#[0-9a-fA-F]{6})?~(.+)$/.exec(c);
    if (!m || state.counters.some((x) => x.path === m[3]) || state.counters.length >= MAX_COUNTERS) continue;
    state.counters.push({ path: m[3], scale: m[1] === '' ? null : Math.max(MIN_SCALE, Math.min(MAX_SCALE, Number(m[1]))), color: m[2] || '' });
  }
  state.colors = {};
  for (const c of q.getAll('k')) {
    const m = /^(#[0-9a-fA-F]{6})~(.+)$/.exec(c);
    if (m) state.colors[m[2]] = m[1];
  }
}

function writeUrl() {
  const q = new URLSearchParams();
  q.set('v', state.view);
  q.set('i', String(state.interval));
  q.set('w', String(state.window));
  q.set('y', `${state.ymin},${state.ymax}`);
  if (state.paused) q.set('p', '1');
  if (state.hl) q.set('hl', state.hl);
  if (state.log) q.set('log', state.log);
  if (state.b) q.set('b', state.b);
  if (state.e) q.set('e', state.e);
  for (const c of state.counters) q.append('c', `${c.scale ?? ''}~${c.color}~${c.path}`);
  for (const [k, v] of Object.entries(state.colors)) q.append('k', `${v}~${k}`);
  history.replaceState(null, '', '#' + q.toString());
}

// ------------------------------------------------------------ data store
// One time axis (seconds) shared by every series; a series is a counter, or
// one item (instance) of a wildcard counter. null is a gap.
const store = { t: [], series: new Map() };  // key -> {key, ci, item, raw: [], color, ...}
let meta = [];     // per counter, from perfd's meta event
let order = [];    // series keys in display order

function seriesKey(path, item, multi) { return multi ? `${path}|${item}` : path; }

function ensureSeries(ci, item, multi) {
  const c = state.counters[ci];
  const key = seriesKey(c.path, item, multi);
  let s = store.series.get(key);
  if (!s) {
    // Called once the sample's time is in store.t: earlier times are gaps.
    s = { key, path: c.path, item, multi, raw: new Array(Math.max(0, store.t.length - 1)).fill(null) };
    store.series.set(key, s);
    rebuildPlot = true;
  }
  s.ci = ci;
  s.seen = store.t.length;
  return s;
}

function appendSample(t, values) {
  store.t.push(t / 1000);
  const n = store.t.length;
  for (let ci = 0; ci < state.counters.length; ci++) {
    const m = meta[ci];
    const v = values[ci];
    if (!m || !m.ok) continue;
    if (m.multi) {
      if (Array.isArray(v)) for (const [item, x] of v) ensureSeries(ci, item, true).raw.push(x);
    } else {
      ensureSeries(ci, '', false).raw.push(typeof v === 'number' ? v : null);
    }
  }
  for (const s of store.series.values()) if (s.raw.length < n) s.raw.push(null);
  // Trim in batches: uPlot draws only what the x range shows.
  const cap = state.window + 1;
  if (!state.log && n > cap + Math.max(8, cap >> 3)) trim(cap);
}

function trim(cap) {
  const drop = store.t.length - cap;
  if (drop <= 0) return;
  store.t.splice(0, drop);
  for (const s of store.series.values()) s.raw.splice(0, drop);
  // A wildcard item gone for a whole window goes from the legend.
  for (const [k, s] of store.series) {
    if (s.multi && s.raw.every((x) => x === null)) { store.series.delete(k); rebuildPlot = true; }
  }
}

function gapSample() {  // a disconnection or a restarted stream breaks the line
  if (!store.t.length) return;
  store.t.push(store.t[store.t.length - 1] + 1e-3);
  for (const s of store.series.values()) s.raw.push(null);
}

function clearData() {
  store.t = [];
  for (const s of store.series.values()) s.raw = [];
  rebuildPlot = true;
  schedule();
}

// ------------------------------------------------------------ series info
function colorOf(s, i) {
  const c = state.counters[s.ci];
  return state.colors[s.key] || (!s.multi && c && c.color) || PALETTE[i % PALETTE.length];
}
// The display scale (a power of ten) of a series: the one chosen in the
// legend, else automatic: the counter's default scale (its definition's,
// as System Monitor starts with) while the values shown fit the vertical
// range, else the largest power of ten that brings them in (System
// Monitor's "Scale selected counters"), kept in autoScale.
const autoScale = new Map();  // series key -> exponent
function isAuto(s) {
  const c = state.counters[s.ci];
  return !c || c.scale === null || c.scale === undefined;
}
function defaultScale(s) {
  const m = meta[s.ci];
  return m && m.ok && Number.isFinite(m.scale) ? m.scale : 0;
}
function scaleOf(s) {
  if (!isAuto(s)) return state.counters[s.ci].scale;
  const a = autoScale.get(s.key);
  return a === undefined ? defaultScale(s) : a;
}
function fitScale(s, st) {
  if (st.max === null) return autoScale.get(s.key) ?? defaultScale(s);
  const inRange = (e) => st.max * 10 ** e <= state.ymax && st.min * 10 ** e >= state.ymin;
  const d = defaultScale(s);
  if (inRange(d)) return d;
  for (let e = MAX_SCALE; e >= MIN_SCALE; e--) if (inRange(e)) return e;
  // Nothing puts every value in (values of both signs, a range above 0):
  // the largest scale whose magnitudes fit.
  const lim = Math.max(Math.abs(state.ymin), Math.abs(state.ymax));
  const mag = Math.max(Math.abs(st.max), Math.abs(st.min));
  for (let e = MAX_SCALE; e >= MIN_SCALE; e--) if (mag * 10 ** e <= lim) return e;
  return MIN_SCALE;
}
// True when an automatic scale changed (the graph and legend redraw).
function updateAutoScales(stats) {
  let moved = false;
  for (const k of order) {
    const s = store.series.get(k);
    if (!isAuto(s)) continue;
    const e = fitScale(s, stats.get(k));
    if (autoScale.get(k) !== e) { autoScale.set(k, e); moved = true; }
  }
  return moved;
}
function scaleText(e) {  // 0.001 .. 1000, else 1e-9, 1e6
  if (Math.abs(e) > 3) return `1e${e}`;
  return e >= 0 ? String(10 ** e) : `0.${'0'.repeat(-e - 1)}1`;
}
function parts(s) {
  const m = meta[s.ci] || {};
  let inst = m.instance || '', parent = m.parent || '';
  if (s.multi) {
    const slash = s.item.indexOf('/');
    if (slash >= 0) { parent = s.item.slice(0, slash); inst = s.item.slice(slash + 1); } else { inst = s.item; parent = ''; }
  }
  return { machine: m.machine || '', object: m.object || '', counter: m.counter || s.path, inst, parent };
}

function windowStats(raw) {
  const start = state.log ? 0 : Math.max(0, raw.length - state.window);  // a log: the whole window
  let n = 0, sum = 0, min = Infinity, max = -Infinity, last = null;
  for (let i = start; i < raw.length; i++) {
    const v = raw[i];
    if (v === null) continue;
    n++; sum += v; last = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // Last is the newest sample: a gap there shows as one.
  last = raw.length ? raw[raw.length - 1] : null;
  return n ? { last, avg: sum / n, min, max } : { last: null, avg: null, min: null, max: null };
}

function fmt(v) {
  if (v === null || v === undefined) return '\u2014';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e9 || a < 1e-3)) return v.toExponential(3);
  return v.toLocaleString('en-US', { maximumFractionDigits: a >= 1000 ? 0 : 3 });
}

// ------------------------------------------------------------ graph
let plot = null;
let rebuildPlot = true;
let selected = '';
const perf = { samples: 0, frames: 0, drawMs: [], latencyMs: [], lastT: 0 };


const TIME_STEPS = [1, 5, 10, 15, 30, 60, 300, 600, 900, 1800, 3600, 7200, 10800, 14400, 21600, 28800, 43200,
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 30, 60, 90, 120, 180, 365].map((d) => d * 86400)];

// Seconds since the epoch as local HH:MM:SS.
function hms(t) {
  const d = new Date(t * 1000);
  const p = (n) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function buildPlot() {
  if (plot) { plot.destroy(); plot = null; }
  order = [...store.series.keys()];
  const el = $('chart');
  el.textContent = '';
  const opts = {
    width: Math.max(200, el.clientWidth || 800),
    height: Math.max(180, Math.min(420, Math.round(window.innerHeight * 0.45))),
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { auto: false, range: () => [state.ymin, state.ymax] } },
    series: [{}, ...order.map((k, i) => {
      const s = store.series.get(k);
      const hl = state.hl && state.hl === k;
      const dim = state.hl && !hl;
      return { label: k, stroke: colorOf(s, i) + (dim ? '55' : ''), width: hl ? 2 : 1, spanGaps: false,
        points: { show: false } };
    })],
    // One line per tick, 24-hour local time: uPlot's default puts the date
    // under the first tick, where it ran into the second tick's label.
    // Whole seconds at least (uPlot's own steps from 1 s up): the labels
    // have no fractions, so finer ticks would repeat a label.
    axes: [{ stroke: '#444', grid: { stroke: '#eee' }, space: 70, incrs: TIME_STEPS, values: (u, ticks) => ticks.map(hms) },
      { stroke: '#444', grid: { stroke: '#eee' }, size: 60 }],
    hooks: { draw: [() => { perf.frames++; }] },
  };
  plot = new uPlot(opts, plotData(), el);
  rebuildPlot = false;
}

const scaled = new Map();  // key -> {scale, arr}: raw * 10^scale
function plotData() {
  const data = [store.t];
  for (const k of order) {
    const s = store.series.get(k);
    const sc = scaleOf(s);
    if (sc === 0) { data.push(s.raw); continue; }
    const f = 10 ** sc;
    let c = scaled.get(k);
    if (!c || c.scale !== sc || c.src !== s.raw || c.arr.length > s.raw.length) c = { scale: sc, src: s.raw, arr: [] };
    for (let i = c.arr.length; i < s.raw.length; i++) c.arr.push(s.raw[i] === null ? null : s.raw[i] * f);
    scaled.set(k, c);
    data.push(c.arr);
  }
  return data;
}

function drawGraph() {
  if (rebuildPlot || !plot) buildPlot();
  const t = store.t;
  const t1 = t.length ? t[t.length - 1] : Date.now() / 1000;
  // Live: the whole window, filling from the right. A log: its window.
  const t0 = state.log && t.length ? t[0] : t1 - (state.window - 1) * state.interval / 1000;
  plot.batch(() => {
    plot.setData(plotData(), false);
    plot.setScale('x', { min: t0, max: Math.max(t1, t0 + state.interval / 1000) });
  });
}

// ------------------------------------------------------------ histogram, report
function drawHist(stats) {
  const el = $('hist');
  const span = state.ymax - state.ymin;
  const bars = order.map((k, i) => {
    const s = store.series.get(k);
    const st = stats.get(k);
    const d = document.createElement('div');
    d.className = 'b';
    d.title = `${legendName(s)}: ${fmt(st.last)}`;
    if (st.last === null) { d.classList.add('gap'); return d; }
    const v = st.last * 10 ** scaleOf(s);
    d.style.height = `${Math.max(0, Math.min(100, (v - state.ymin) / span * 100))}%`;
    d.style.background = colorOf(s, i);
    if (state.hl && state.hl !== k) d.style.opacity = '.35';
    return d;
  });
  el.replaceChildren(...bars);
}

function drawReport(stats) {
  // Grouped as System Monitor's report: computer and object, then counter rows
  // with one column per instance.
  const groups = new Map();
  for (const k of order) {
    const s = store.series.get(k);
    const p = parts(s);
    const g = `${p.machine}\u0000${p.object}`;
    if (!groups.has(g)) groups.set(g, { p, insts: [], rows: new Map() });
    const G = groups.get(g);
    const inst = p.parent ? `${p.parent}/${p.inst}` : p.inst;
    if (!G.insts.includes(inst)) G.insts.push(inst);
    if (!G.rows.has(p.counter)) G.rows.set(p.counter, new Map());
    G.rows.get(p.counter).set(inst, stats.get(k).last);
  }
  const out = [];
  for (const G of groups.values()) {
    const tb = document.createElement('table');
    const cap = tb.createCaption();
    cap.textContent = `\\\\${G.p.machine}  ${G.p.object}`;
    const hr = tb.createTHead().insertRow();
    hr.insertCell().outerHTML = '<th>Counter</th>';
    for (const i of G.insts) { const th = document.createElement('th'); th.textContent = i || '\u00a0'; hr.appendChild(th); }
    const body = tb.createTBody();
    for (const [cn, vals] of G.rows) {
      const r = body.insertRow();
      r.insertCell().textContent = cn;
      for (const i of G.insts) { const td = r.insertCell(); td.className = 'num'; td.textContent = vals.has(i) ? fmt(vals.get(i)) : ''; }
    }
    out.push(tb);
  }
  $('report').replaceChildren(...out);
}

// ------------------------------------------------------------ legend
function legendName(s) {
  const p = parts(s);
  return `${p.counter}${p.inst ? ` (${p.parent ? p.parent + '/' : ''}${p.inst})` : ''}`;
}

let legendKeys = '';
function drawLegend(stats) {
  const tb = $('legend').tBodies[0];
  const keys = order.join('\n') + '|' + state.hl + '|' + order.map((k, i) => colorOf(store.series.get(k), i) + scaleOf(store.series.get(k)) + isAuto(store.series.get(k))).join();
  if (keys !== legendKeys) {
    legendKeys = keys;
    const act = document.activeElement;
    const focusKey = act && act.tagName === 'TR' && tb.contains(act) ? act.dataset.key : '';
    tb.replaceChildren(...order.map((k, i) => legendRow(store.series.get(k), i)));
    // Counters that perfd refused, with the reason.
    meta.forEach((m, ci) => {
      if (m && !m.ok) {
        const r = tb.insertRow();
        r.className = 'bad';
        const td = r.insertCell();
        td.colSpan = 11;
        td.textContent = `${state.counters[ci] ? state.counters[ci].path : ''}: ${m.error}${m.message ? ' - ' + m.message : ''}`;
        const x = r.insertCell();
        x.appendChild(removeButton(ci));
      }
    });
    const again = focusKey && [...tb.rows].find((r) => r.dataset.key === focusKey);
    if (again) again.focus();
  }
  for (const r of tb.rows) r.classList.toggle('sel', !!selected && r.dataset.key === selected);
  for (const r of tb.rows) {
    const k = r.dataset.key;
    if (!k) continue;
    const st = stats.get(k);
    const c = r.cells;
    c[7].textContent = fmt(st.last); c[8].textContent = fmt(st.avg);
    c[9].textContent = fmt(st.min); c[10].textContent = fmt(st.max);
  }
  $('empty').hidden = state.counters.length > 0;
  $('empty-log').textContent = state.log ? ` They are shown from the log ${state.log}.` : '';
}

function removeButton(ci) {
  const b = document.createElement('button');
  b.textContent = '\u00d7';
  b.title = 'Remove this counter';
  b.setAttribute('aria-label', 'Remove ' + (state.counters[ci] ? state.counters[ci].path : ''));
  b.addEventListener('click', (e) => { e.stopPropagation(); removeCounter(ci); });
  return b;
}

function legendRow(s, i) {
  const r = document.createElement('tr');
  r.dataset.key = s.key;
  r.tabIndex = 0;
  if (selected === s.key) r.classList.add('sel');
  if (state.hl === s.key) r.classList.add('hl');
  const p = parts(s);
  const col = document.createElement('input');
  col.type = 'color';
  col.value = colorOf(s, i);
  col.setAttribute('aria-label', 'Colour of ' + legendName(s));
  col.addEventListener('change', () => { state.colors[s.key] = col.value; rebuildPlot = true; changed(false); });
  const sc = document.createElement('select');
  sc.setAttribute('aria-label', 'Scale of ' + legendName(s));
  // "auto" names the scale it chose, so the line's scale is always shown.
  sc.appendChild(new Option(`${scaleText(scaleOf(s))} auto`, 'auto'));
  for (let e = MAX_SCALE; e >= MIN_SCALE; e--) sc.appendChild(new Option(scaleText(e), String(e)));
  sc.value = isAuto(s) ? 'auto' : String(scaleOf(s));
  sc.title = `Values are drawn \u00d7 ${scaleText(scaleOf(s))}${isAuto(s) ? ' (chosen automatically)' : ''}`;
  sc.addEventListener('change', () => {
    state.counters[s.ci].scale = sc.value === 'auto' ? null : Number(sc.value);
    changed(false);
  });
  const cells = [col, sc, p.counter, p.inst, p.parent, p.object, p.machine, '', '', '', ''];
  cells.forEach((v, j) => {
    const td = r.insertCell();
    if (j >= 7) td.className = 'num';
    if (j === 2) td.className = 'name';
    if (j >= 4 && j <= 6) td.className = 'wide';
    if (typeof v === 'string') td.textContent = v; else td.appendChild(v);
  });
  r.insertCell().appendChild(removeButton(s.ci));
  r.addEventListener('click', () => select(s.key));
  r.addEventListener('focus', () => { if (selected !== s.key) select(s.key, true); });
  return r;
}

function select(key, fromFocus) {
  selected = key;
  render();
  if (!fromFocus) { const r = [...$('legend').tBodies[0].rows].find((x) => x.dataset.key === key); if (r) r.focus(); }
}

// ------------------------------------------------------------ rendering
let pending = false;
function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(render);
}

// The graph redraws on every sample; the text (legend statistics,
// histogram, report) at most every TEXT_MS, which is as fast as anyone reads
// it and spares a pass over every point of every series at 10 Hz.
const TEXT_MS = 250;
let lastText = -Infinity;
let textTimer = 0;

function render() {
  pending = false;
  const t0 = performance.now();
  const structural = rebuildPlot || legendKeys === '';
  if (rebuildPlot) order = [...store.series.keys()];
  if (structural) {  // DOM writes only when something changed: each one costs a style pass
    $('chart').hidden = state.view !== 'graph';
    $('hist').hidden = state.view !== 'hist';
    $('report').hidden = state.view !== 'report';
    for (const b of document.querySelectorAll('[data-view]')) b.setAttribute('aria-pressed', String(b.dataset.view === state.view));
    $('pause').setAttribute('aria-pressed', String(state.paused));
    $('pause').textContent = state.paused ? 'Resume' : 'Pause';
    $('highlight').setAttribute('aria-pressed', String(!!state.hl));
    document.body.dataset.view = state.view;
  }
  // Statistics first: the automatic scales follow them before the graph draws.
  const textDue = structural || t0 - lastText >= TEXT_MS;
  const stats = new Map();
  if (textDue) {
    for (const k of order) stats.set(k, windowStats(store.series.get(k).raw));
    if (updateAutoScales(stats)) legendKeys = '';
  }
  if (state.view === 'graph') drawGraph();
  else rebuildPlot = rebuildPlot && !!plot;
  if (textDue) {
    lastText = t0;
    if (state.view === 'hist') drawHist(stats);
    if (state.view === 'report') drawReport(stats);
    drawLegend(stats);
  } else if (!textTimer) {
    textTimer = setTimeout(() => { textTimer = 0; lastText = -Infinity; schedule(); }, TEXT_MS - (t0 - lastText));
  }
  perf.drawMs.push(performance.now() - t0);
  if (perf.drawMs.length > 2000) perf.drawMs.splice(0, 1000);
  if (perf.lastT) { perf.latencyMs.push(Date.now() - perf.lastT); perf.lastT = 0; if (perf.latencyMs.length > 2000) perf.latencyMs.splice(0, 1000); }
  if (document.body.dataset.samples !== String(perf.samples)) document.body.dataset.samples = String(perf.samples);
}

// ------------------------------------------------------------ the stream
// Server-Sent Events read through fetch() rather than EventSource, which
// hides the answer: a refusal keeps perfd's status and reason (the body of
// its text/plain answer) for the page to show.
let conn = null;   // the current stream: {ac: AbortController}
let retryTimer = 0;
let retryDelay = 1000;
let lostAt = 0;

// The banner above the chart; body[data-conn] (for tests): open, lost
// (perfd not reachable), refused (perfd refused the counters).
function status(msg, ok, conn) {
  const el = $('status');
  el.textContent = msg;
  el.hidden = !msg;
  el.className = ok ? 'ok' : '';
  document.body.dataset.conn = conn || (msg && !ok ? 'lost' : 'open');
}

// "403 Forbidden: the reason perfd gave" from a failed answer.
async function answerText(r) {
  let why = (await r.text().catch(() => '')).trim();
  try { const j = JSON.parse(why); if (j && typeof j.error === 'string') why = j.error; } catch { /* text/plain */ }
  return `${r.status}${r.statusText ? ' ' + r.statusText : ''}${why ? ': ' + why.slice(0, 500) : ''}`;
}

function connect() {
  if (conn) conn.ac.abort();
  conn = null;
  clearTimeout(retryTimer);
  meta = [];
  document.body.dataset.meta = '0';
  const log = state.log;
  $('live').hidden = !log;
  $('machine').textContent = log ? ` \u2014 log ${log}` : $('machine').textContent.replace(/ \u2014 log .*/, '');
  if (!state.counters.length) {
    document.body.dataset.replay = log ? 'empty' : '';
    render();
    return;
  }
  const q = new URLSearchParams(log ? { log } : { i: String(state.interval) });
  if (log && state.b) q.set('b', state.b);
  if (log && state.e) q.set('e', state.e);
  for (const c of state.counters) q.append('c', c.path);
  document.body.dataset.replay = log ? 'loading' : '';
  const c = { ac: new AbortController() };
  conn = c;
  run(c, (log ? 'v1/replay?' : 'v1/stream?') + q.toString(), log);
}

async function run(c, url, log) {
  let r;
  try {
    r = await fetch(url, { cache: 'no-store', signal: c.ac.signal, headers: { Accept: 'text/event-stream' } });
    if (c !== conn) return;
    if (!r.ok || !r.body) { const why = await answerText(r); if (c === conn) failed(log, r.status, why); return; }
  } catch {
    if (c === conn) failed(log, 0, '');
    return;
  }
  const rd = r.body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await rd.read();
      if (done || c !== conn) break;
      buf += dec.decode(value, { stream: true });
      for (let k; (k = buf.indexOf('\n\n')) >= 0;) {
        const block = buf.slice(0, k);
        buf = buf.slice(k + 2);
        let name = 'message', data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line[5] === ' ' ? 6 : 5);
        }
        if (data && event(name, data, log) === 'end') { c.ac.abort(); conn = null; return; }
      }
    }
  } catch { /* the connection broke, or this stream was replaced */ }
  if (c === conn) failed(log, 0, '');
}

function event(name, data, log) {
  if (name === 'end') {  // a replay's last record: loaded once, nothing follows
    if (document.body.dataset.replay !== 'failed') document.body.dataset.replay = 'done';
    schedule();
    return 'end';
  }
  if (name === 'meta') {
    const m = JSON.parse(data);
    meta = m.counters;
    document.body.dataset.meta = String(meta.length);
    $('machine').textContent = (m.machine ? `\\\\${m.machine}` : '') + (log ? ` \u2014 log ${log}` : '');
    if (log) clearData(); else gapSample();
    if (lostAt) { status('Connected to perfd again.', true); setTimeout(() => { if (!lostAt) status(''); }, 3000); lostAt = 0; }
    else status('');  // a refusal or a failed replay before this stream
    retryDelay = 1000;
    for (const s of store.series.values()) {  // series whose counter left the set
      if (!state.counters.some((c) => c.path === s.path)) { store.series.delete(s.key); rebuildPlot = true; }
    }
    // A log none of whose counters could be read (not a log, damaged):
    // perfd's reason, once, above the chart.
    if (log && meta.length && meta.every((x) => !x.ok && !/^PDH_CSTATUS/.test(x.error) && x.message === meta[0].message)) {
      status(`perfd could not replay the log ${log}: ${meta[0].message || meta[0].error}`, false, 'open');
      document.body.dataset.replay = 'failed';
    }
    rebuildPlot = true;
    legendKeys = '';
    schedule();
  } else if (name === 'sample') {
    if (state.paused && !log) return '';
    const d = JSON.parse(data);
    appendSample(d.t, d.v);
    perf.samples++;
    perf.lastT = d.t;
    schedule();
  }
  return '';
}

// The stream could not start or broke off. code: perfd's HTTP status (0:
// no answer, or the connection ended); why: "STATUS TEXT: reason".
function failed(log, code, why) {
  conn = null;
  if (log) {  // a replay is not retried
    document.body.dataset.replay = 'failed';
    status(`perfd could not replay the log ${log}: ${why || 'the connection to perfd ended before the log was sent'}.`, false, 'open');
    return;
  }
  if (code >= 400 && code < 500 && code !== 408 && code !== 429) {
    // Refused for what the page asked (a machine perfd may not reach, a
    // bad path): retrying would be refused the same way. The counters stay
    // listed so that they can be removed.
    status(`perfd refused the counters: ${why}. Remove or change the counter it names.`, false, 'refused');
    meta = state.counters.map(() => ({ ok: false, error: `not shown (${code})`, message: 'perfd refused the stream, see above' }));
    legendKeys = '';
    schedule();
    return;
  }
  if (!lostAt) lostAt = Date.now();
  gapSample();
  const again = `retrying every ${Math.round(retryDelay / 1000)} s. Values while it is away show as gaps.`;
  status(code ? `perfd at ${location.host} answered ${why}; ${again}` : `Lost the connection to perfd at ${location.host}; ${again}`, false);
  retryTimer = setTimeout(connect, retryDelay);
  retryDelay = Math.min(5000, retryDelay * 2);
  schedule();
}

// ------------------------------------------------------------ actions
function changed(reconnect) {
  writeUrl();
  legendKeys = '';
  rebuildPlot = true;
  if (reconnect) connect(); else schedule();
}

function addPaths(paths) {
  let added = 0;
  for (const p of paths) {
    if (state.counters.length >= MAX_COUNTERS) return `at most ${MAX_COUNTERS} counters per page`;
    if (state.counters.some((c) => c.path === p)) continue;
    state.counters.push({ path: p, scale: null, color: '' });
    added++;
  }
  if (added) changed(true);
  return '';
}

function removeCounter(ci) {
  const c = state.counters[ci];
  if (!c) return;
  state.counters.splice(ci, 1);
  for (const [k, s] of store.series) if (s.path === c.path) { store.series.delete(k); autoScale.delete(k); delete state.colors[k]; }
  if (state.hl && !store.series.has(state.hl)) state.hl = '';
  selected = '';
  changed(true);
}

function removeSelected() {
  const s = store.series.get(selected);
  if (s) removeCounter(s.ci);
}

function toggleHighlight() {
  const k = state.hl ? '' : (selected || order[0] || '');
  state.hl = k;
  changed(false);
}

function setView(v) { state.view = v; rebuildPlot = true; changed(false); }

function togglePause() {
  state.paused = !state.paused;
  if (!state.paused) gapSample();
  changed(false);
}

// ------------------------------------------------------------ add dialog
let objects = [];
let objectInfo = null;

async function getJson(url) {
  let r;
  try {
    r = await fetch(url, { cache: 'no-store' });
  } catch {
    throw new Error(`no answer from perfd at ${location.host}`);
  }
  if (!r.ok) throw new Error(await answerText(r));
  return r.json();
}

function dialogMachine() { return $('d-machine').value.trim().replace(/^\\\\/, ''); }
function machineParam() {
  const m = dialogMachine();
  return m ? `&machine=${encodeURIComponent(m)}` : '';
}

// A machine or object that cannot be listed: nothing of another machine
// (or object) stays in the lists to be added under this one's name.
function clearLists(what) {
  if (what === 'objects') { objects = []; $('d-object').replaceChildren(); }
  objectInfo = null;
  $('d-counters').replaceChildren();
  $('d-instances').replaceChildren();
  $('d-explain').textContent = '';
}

async function openDialog() {
  $('d-error').textContent = '';
  $('dlg').showModal();
  await loadObjects();
}

// The machine whose lists the dialog shows ('' this one); a newer listing
// replaces an older one still on its way.
let listed = null;
let listSeq = 0;

async function loadObjects() {
  const seq = ++listSeq;
  const m = dialogMachine();
  if (m !== listed) {  // nothing of the machine before may be added under this one's name
    listed = m;
    loadSeq++;
    clearLists('objects');
    $('d-error').textContent = '';
    $('d-explain').textContent = `Listing the objects of ${m || 'this computer'}\u2026`;
  }
  let r;
  try {
    r = await getJson('v1/browse/objects?' + machineParam().slice(1));
  } catch (e) {
    if (seq !== listSeq) return;
    listed = null;
    loadSeq++;
    clearLists('objects');
    $('d-error').textContent = `Cannot list the objects of ${m || 'this computer'}: ${e.message}`;
    return;
  }
  if (seq !== listSeq) return;
  objects = r.objects;
  const sel = $('d-object');
  const keep = sel.value;
  sel.replaceChildren(...objects.map((o) => new Option(o.name, o.name)));
  sel.value = objects.some((o) => o.name === keep) ? keep : (objects.some((o) => o.name === 'Processor') ? 'Processor' : (objects[0] || {}).name);
  $('d-error').textContent = '';
  await loadObject();
}

// Loads can overlap (the dialog opening loads the object it shows while
// the user picks one): only the latest answer is shown, and an answer for
// the object already shown keeps the counters and instances picked in it.
let loadSeq = 0;

async function loadObject() {
  const name = $('d-object').value;
  if (!name) return;
  const seq = ++loadSeq;
  let info;
  try {
    info = await getJson(`v1/browse/object?object=${encodeURIComponent(name)}${machineParam()}`);
  } catch (e) {
    if (seq === loadSeq) { clearLists('object'); $('d-error').textContent = `Cannot read ${name}: ${e.message}`; }
    return;
  }
  if (seq !== loadSeq) return;
  $('d-error').textContent = '';
  const cs = $('d-counters');
  const is = $('d-instances');
  const same = objectInfo && objectInfo.object === info.object;
  const pickedC = same ? new Set([...cs.selectedOptions].map((o) => o.value)) : new Set();
  const pickedI = same ? new Set([...is.selectedOptions].map((o) => o.value)) : new Set();
  objectInfo = info;
  cs.replaceChildren(...objectInfo.counters.map((c) => new Option(c.name, c.name, false, pickedC.has(c.name))));
  if (cs.selectedOptions.length === 0 && cs.options.length) cs.options[0].selected = true;
  const insts = [...objectInfo.instances].sort((a, b) => (b === '_Total') - (a === '_Total') || a.localeCompare(b, 'en', { numeric: true }));
  is.replaceChildren(...insts.map((i) => new Option(i, i, false, pickedI.has(i))));
  if (is.selectedOptions.length === 0) {
    const tot = [...is.options].find((o) => o.value === '_Total');
    if (tot) tot.selected = true; else if (is.options.length) is.options[0].selected = true;
  }
  $('d-instbox').disabled = !objectInfo.has_instances;
  explain();
}

function explain() {
  if (!objectInfo) return;
  const cs = $('d-counters');
  const c = objectInfo.counters.find((x) => x.name === cs.value);
  $('d-explain').textContent = c ? `${c.name}: ${c.explain || '(no explain text)'}` : (objectInfo.explain || '');
}

// Instance names as PDH paths write them: "parent/name#k" as it is.
function dialogPaths() {
  if (!objectInfo) return [];
  const m = dialogMachine();
  const pre = m ? `\\\\${m}` : '';
  const obj = objectInfo.object;
  const counters = $('d-allc').checked ? objectInfo.counters.map((c) => c.name)
    : [...$('d-counters').selectedOptions].map((o) => o.value);
  let insts = [''];
  if (objectInfo.has_instances) {
    insts = $('d-alli').checked ? ['*'] : [...$('d-instances').selectedOptions].map((o) => o.value);
    if (!insts.length) return [];
  }
  const out = [];
  for (const c of counters) for (const i of insts) out.push(`${pre}\\${obj}${objectInfo.has_instances ? `(${i})` : ''}\\${c}`);
  return out;
}

function dialogAdd() {
  if (!objectInfo) {  // the lists are empty: the reason stays shown
    if (!$('d-error').textContent) $('d-error').textContent = 'Nothing to add: no object is listed.';
    return;
  }
  const paths = dialogPaths();
  if (!paths.length) { $('d-error').textContent = 'Choose at least one counter and one instance.'; return; }
  $('d-error').textContent = addPaths(paths);
}

// ------------------------------------------------------------ log dialog
// Log mode from the toolbar: perfd lists the logs of its log directory
// (/v1/logs); the chart's counters are replayed from the one picked, over
// the whole log or a From/To window (local time, whole seconds).
function localInput(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function bytes(n) {
  const u = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${u[i]}`;
}

async function openLogs() {
  const sel = $('l-list');
  $('l-error').textContent = '';
  $('l-note').textContent = state.counters.length ? '' : 'The chart has no counters yet: after choosing a log, add the ones it recorded (Add\u2026).';
  $('l-from').value = state.b ? localInput(Number(state.b)) : '';
  $('l-to').value = state.e ? localInput(Number(state.e)) : '';
  sel.replaceChildren();
  $('ldlg').showModal();
  let r;
  try {
    r = await getJson('v1/logs');
  } catch (e) {
    $('l-error').textContent = `Cannot list perfd's logs: ${e.message}`;
    return;
  }
  sel.replaceChildren(...r.logs.map((l) => new Option(`${l.name} \u2014 ${bytes(l.bytes)}, ${new Date(l.modified).toLocaleString()}`, l.name)));
  if (!r.logs.length) $('l-error').textContent = "perfd's log directory has no logs yet (typeperf -f BIN -o DIR/NAME.blg writes one).";
  else sel.value = r.logs.some((l) => l.name === state.log) ? state.log : r.logs[0].name;
  if (r.truncated) $('l-note').textContent = `Only the newest ${r.logs.length} logs are listed.`;
}

function showLog() {
  const name = $('l-list').value;
  if (!name) { $('l-error').textContent = 'Choose a log.'; return; }
  const from = $('l-from').value, to = $('l-to').value;
  const b = from ? Math.max(0, new Date(from).getTime()) : null;
  // "To" is inclusive: the whole second it names. The field has seconds
  // (step=1); the browser leaves ":00" out of its value, which still names
  // a second, not a minute.
  const e = to ? Math.max(0, new Date(to).getTime() + 999) : null;
  if ((from && !Number.isFinite(b)) || (to && !Number.isFinite(e))) { $('l-error').textContent = 'A time is not valid.'; return; }
  if (b !== null && e !== null && b > e) { $('l-error').textContent = 'From is after To.'; return; }
  state.log = name;
  state.b = b === null ? '' : String(b);
  state.e = e === null ? '' : String(e);
  $('ldlg').close();
  setMode();
}

function leaveLog() {
  state.log = state.b = state.e = '';
  setMode();
}

function setMode() {  // live <-> a log: the data of the other starts afresh
  store.series.clear();
  store.t = [];
  autoScale.clear();
  selected = '';
  changed(true);
}

// ------------------------------------------------------------ wiring
function numberInput(id, apply) {
  $(id).addEventListener('change', () => {
    const v = Number($(id).value);
    if (Number.isFinite(v)) apply(v);
  });
}

function init() {
  readUrl();
  $('interval').value = String(state.interval / 1000);
  $('window').value = String(state.window);
  $('ymin').value = String(state.ymin);
  $('ymax').value = String(state.ymax);
  for (const b of document.querySelectorAll('[data-view]')) b.addEventListener('click', () => setView(b.dataset.view));
  $('add').addEventListener('click', openDialog);
  $('remove').addEventListener('click', removeSelected);
  $('highlight').addEventListener('click', toggleHighlight);
  $('clear').addEventListener('click', clearData);
  $('pause').addEventListener('click', togglePause);
  numberInput('interval', (v) => { state.interval = Math.round(Math.min(3600, Math.max(0.1, v)) * 1000); clearData(); changed(true); });
  numberInput('window', (v) => { state.window = Math.round(Math.min(36000, Math.max(10, v))); changed(false); });
  numberInput('ymin', (v) => { if (v < state.ymax) { state.ymin = v; changed(false); } });
  numberInput('ymax', (v) => { if (v > state.ymin) { state.ymax = v; changed(false); } });
  $('d-object').addEventListener('change', loadObject);
  $('d-machine').addEventListener('change', loadObjects);
  $('d-counters').addEventListener('change', explain);
  $('d-counters').addEventListener('focus', explain);
  $('d-add').addEventListener('click', dialogAdd);
  $('logs').addEventListener('click', openLogs);
  $('live').addEventListener('click', leaveLog);
  $('l-open').addEventListener('click', showLog);
  $('l-list').addEventListener('dblclick', showLog);
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || $('dlg').open || $('ldlg').open) return;
    const tag = e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    const keys = { a: openDialog, g: () => setView('graph'), b: () => setView('hist'), r: () => setView('report'),
      h: toggleHighlight, c: clearData, p: togglePause, l: openLogs, Delete: removeSelected };
    if (e.target.tagName === 'TR' && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      const r = e.key === 'ArrowDown' ? e.target.nextElementSibling : e.target.previousElementSibling;
      if (r && r.dataset.key) { e.preventDefault(); select(r.dataset.key); }
      return;
    }
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  window.addEventListener('resize', () => { rebuildPlot = true; schedule(); });
  window.addEventListener('hashchange', () => { readUrl(); store.series.clear(); store.t = []; autoScale.clear(); rebuildPlot = true; connect(); });
  writeUrl();
  connect();
  render();
}

// For the browser tests and the frame-time benchmark (docs/web.md).
window.perflibMonitor = {
  state, store, perf,
  redraw() { render(); },  // the benchmark's continuous-redraw mode
  scaleOf(key) { const s = store.series.get(key); return s ? scaleOf(s) : null; },
  drawn(key) { const i = order.indexOf(key); return i < 0 ? [] : plotData()[i + 1]; },  // as the graph gets it
  // Synthetic history (tests, benchmark). shape 'wave': a smooth fast sine
  // crossing most of the height every few pixels; 'walk': a slow sine with
  // noise, which turns in every pixel column.
  fill(nSeries, nPoints, stepS, t1, shape) {
    t1 = t1 || Date.now() / 1000;
    let seed = 12345;
    const noise = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 - 0.5; };
    const gen = shape === 'walk' ? (i, k) => 50 + 30 * Math.sin(i / 900 + k) + 4 * noise()
      : (i, k) => 50 + 40 * Math.sin(i / 20 + k);
    meta.forEach((m, ci) => { if (m && m.ok && !m.multi) ensureSeries(ci, '', false); });
    store.t = Array.from({ length: nPoints }, (_, i) => t1 - (nPoints - 1 - i) * stepS);
    let j = 0;
    for (const s of store.series.values()) {
      const k = j++;
      s.raw = k < nSeries ? Array.from({ length: nPoints }, (_, i) => gen(i, k)) : new Array(nPoints).fill(null);
    }
    scaled.clear();
    rebuildPlot = true;
    legendKeys = '';
    schedule();
  },
};

init();
