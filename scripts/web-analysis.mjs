// Where the bytes of a built script go, per source file (`node scripts/build-web.mjs --analyze`): the
// minified bytes each file puts in the output (read from esbuild's source map, so the bundle's own wrapper
// is a row of its own) and what each costs compressed: the gzip -9 and brotli 11 size of the whole file
// minus that of the file without those bytes. Compression shares a dictionary across the file, so the
// compressed column is a file's marginal cost, not its share: the rows do not sum to the total.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The segments of a source map's `mappings`: [line, column, source index] of each, in output order. */
function segments(mappings) {
  const out = [];
  let source = 0;
  mappings.split(';').forEach((line, lineNo) => {
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const values = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += values[0];
      if (values.length > 1) source += values[1];
      out.push([lineNo, column, values.length > 1 ? source : -1]);
    }
  });
  return out;
}

export const gzipSize = (bytes) => gzipSync(bytes, { level: 9 }).length;
export const brotliSize = (bytes) =>
  brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length;

/** Rows {file, bytes, gzip, brotli} for the output `code` (a string) and its source map (JSON text), largest first; `nameOf` names a map's source. */
export function analyze(code, mapText, nameOf = (source) => source) {
  const map = JSON.parse(mapText);
  const lineStarts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') lineStarts.push(i + 1);
  const owner = new Array(code.length).fill('(bundle wrapper)');
  const segs = segments(map.mappings).map(([line, column, source]) => [lineStarts[line] + column, source]);
  segs.forEach(([start, source], i) => {
    const end = i + 1 < segs.length ? segs[i + 1][0] : code.length;
    const name = source < 0 ? '(bundle wrapper)' : nameOf(map.sources[source]);
    for (let at = start; at < end; at++) owner[at] = name;
  });
  const whole = Buffer.from(code);
  const total = { gzip: gzipSize(whole), brotli: brotliSize(whole) };
  const rows = [];
  for (const file of new Set(owner)) {
    let kept = '';
    for (let i = 0; i < code.length; i++) if (owner[i] !== file) kept += code[i];
    const without = Buffer.from(kept);
    rows.push({ file, bytes: owner.filter((o) => o === file).length, gzip: total.gzip - gzipSize(without), brotli: total.brotli - brotliSize(without) });
  }
  rows.sort((a, b) => b.bytes - a.bytes);
  return { rows, total: { bytes: whole.length, ...total } };
}

/** The rows as a Markdown table. */
export function table(name, { rows, total }) {
  const n = (x) => x.toLocaleString('en-US');
  const lines = [`| ${name}: source file | minified B | gzip B (marginal) | brotli B (marginal) |`, '|---|---:|---:|---:|'];
  for (const row of rows) lines.push(`| \`${row.file}\` | ${n(row.bytes)} | ${n(row.gzip)} | ${n(row.brotli)} |`);
  lines.push(`| **whole file** | **${n(total.bytes)}** | **${n(total.gzip)}** | **${n(total.brotli)}** |`);
  return lines.join('\n');
}
