// Bundles the System Monitor page into OUTDIR (docs/web.md):
//   node build.mjs OUTDIR
// OUTDIR receives index.html, app.js and app.css (minified, no source maps),
// their .gz twins, and SIZE.txt with each file's raw and gzipped size and the total, which
// must stay at most 64 KiB gzipped (the build fails past it).
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('usage: node build.mjs OUTDIR');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(here, 'src/main.js') },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome100', 'firefox100', 'safari15'],
  outdir: out,
  legalComments: 'eof',
  logLevel: 'warning',
});
writeFileSync(join(out, 'index.html'), readFileSync(join(here, 'src/index.html')));

const LIMIT = 64 * 1024;
let total = 0;
const lines = [];
for (const f of ['index.html', 'app.js', 'app.css']) {
  const raw = readFileSync(join(out, f));
  const z = gzipSync(raw, { level: 9 });
  writeFileSync(join(out, f + '.gz'), z);  // perfd sends these to clients that accept gzip
  const gz = z.length;
  total += gz;
  lines.push(`${f}\t${raw.length}\t${gz}`);
}
lines.push(`total\t-\t${total}`);
writeFileSync(join(out, 'SIZE.txt'), 'file\traw\tgzip\n' + lines.join('\n') + '\n');
if (total > LIMIT) {
  console.error(`perflib-web: the page is ${total} bytes gzipped, over the ${LIMIT}-byte budget`);
  process.exit(1);
}
