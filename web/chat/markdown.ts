/**
 * The model's answers in a small Markdown subset — paragraphs, **strong**, *em*, `code`, fenced code,
 * `-` and `1.` lists, [links](url), bare http(s) URLs, and `#` headings drawn as strong paragraphs —
 * parsed into a tree and built with createElement and text nodes only. Model output is untrusted:
 * nothing here parses HTML (`<img onerror>` stays text), the only elements are the ones named in
 * `Block` and `Inline`, the only attributes `href`/`rel`/`target` of a link and `start` of a list, and a
 * link is made only for an absolute http(s) URL; any other link keeps its text and loses its target.
 */

export type Inline =
  | { t: 'text'; v: string }
  | { t: 'code'; v: string }
  | { t: 'br' }
  | { t: 'strong' | 'em'; c: Inline[] }
  | { t: 'a'; href: string; c: Inline[] };

export type Block = { t: 'p'; c: Inline[] } | { t: 'pre'; v: string } | { t: 'ul' | 'ol'; start: number; items: Inline[][] };

/** The longest link text and link target looked for: bounds the work on a long answer full of brackets. */
const MAX_LABEL = 1000;
const MAX_TARGET = 2048;

/** `raw` as an absolute http(s) URL, or null: every other scheme, and anything relative, is refused. */
export function safeHref(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

const ALNUM = /[\p{L}\p{N}]/u;
const PUNCT = /[!-/:-@[-`{-~]/;

/** Where `[` at `open` closes (nested brackets count), or -1. */
function closing(text: string, open: number, left: string, right: string, max: number): number {
  let depth = 0;
  for (let i = open; i < text.length && i - open <= max; i++) {
    const ch = text[i];
    if (ch === '\\') i++;
    else if (ch === left) depth++;
    else if (ch === right && --depth === 0) return i;
  }
  return -1;
}

/** The inline content of a paragraph or list item; `links` false inside a link's own text. */
export function parseInline(text: string, links = true): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ t: 'text', v: plain });
    plain = '';
  };
  const push = (node: Inline) => {
    flush();
    out.push(node);
  };
  // A closer searched for from `from` and not found is not found from any later place either.
  const missing = new Map<string, number>();
  const find = (key: string, from: number, test: (j: number) => boolean): number => {
    if (from >= (missing.get(key) ?? Infinity)) return -1;
    for (let j = from; j < text.length; j++) if (test(j)) return j;
    missing.set(key, from);
    return -1;
  };

  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const prev = text[i - 1] ?? ' ';
    if (ch === '\\' && PUNCT.test(text[i + 1] ?? '')) {
      plain += text[++i];
    } else if (ch === '\n') {
      push({ t: 'br' });
    } else if (ch === '`') {
      let run = 1;
      while (text[i + run] === '`') run++;
      const fence = '`'.repeat(run);
      const end = find(fence, i + run, (j) => text.startsWith(fence, j) && text[j + run] !== '`' && text[j - 1] !== '`');
      if (end < 0) {
        plain += fence;
        i += run - 1;
        continue;
      }
      let code = text.slice(i + run, end).replace(/\n/g, ' ');
      if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
      push({ t: 'code', v: code });
      i = end + run - 1;
    } else if ((ch === '*' || ch === '_') && !(ch === '_' && ALNUM.test(prev))) {
      const double = text[i + 1] === ch;
      const width = double ? 2 : 1;
      // A closer follows a non-space; `_` opens and closes only at word edges, so snake_case stays as typed.
      const edge = (j: number) => !/\s/.test(text[j - 1]!) && !(ch === '_' && ALNUM.test(text[j + width] ?? ' '));
      let end = /\s/.test(text[i + width] ?? ' ')
        ? -1
        : double
          ? find(ch + ch, i + 3, (j) => text[j] === ch && text[j + 1] === ch && edge(j))
          : find(ch, i + 2, (j) => text[j] === ch && text[j + 1] !== ch && text[j - 1] !== ch && edge(j));
      // `***both***`: the strong closes on the last two stars, the em inside on the first.
      while (double && end > 0 && text[end + 2] === ch) end++;
      if (end < 0) {
        plain += text.slice(i, i + width);
        i += width - 1;
        continue;
      }
      push({ t: double ? 'strong' : 'em', c: parseInline(text.slice(i + width, end), links) });
      i = end + width - 1;
    } else if (ch === '[') {
      const close = closing(text, i, '[', ']', MAX_LABEL);
      const end = close > 0 && text[close + 1] === '(' ? closing(text, close + 1, '(', ')', MAX_TARGET) : -1;
      if (end < 0) {
        plain += ch;
        continue;
      }
      const label = parseInline(text.slice(i + 1, close), false);
      // The target, without <…> and a "title".
      const target = text.slice(close + 2, end).trim().replace(/\s+("[^"]*"|'[^']*')$/, '').replace(/^<(.*)>$/, '$1');
      const href = links ? safeHref(target) : null;
      if (href) push({ t: 'a', href, c: label });
      else {
        flush();
        out.push(...label);
      }
      i = end;
    } else if (links && (ch === 'h' || ch === 'H') && !ALNUM.test(prev) && /^https?:\/\//i.test(text.slice(i, i + 8))) {
      let url = /^[^\s<>"`]+/.exec(text.slice(i, i + MAX_TARGET))![0];
      // Sentence punctuation after a URL is not part of it, nor a `)` that opened before it.
      for (;;) {
        const last = url[url.length - 1]!;
        if (/[.,;:!?'*_\]]/.test(last) || (last === ')' && url.split('(').length < url.split(')').length)) url = url.slice(0, -1);
        else break;
      }
      const href = safeHref(url);
      if (href) push({ t: 'a', href, c: [{ t: 'text', v: url }] });
      else plain += url;
      i += url.length - 1;
    } else {
      plain += ch;
    }
  }
  flush();
  return out;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const HEADING = /^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/;
const RULE = /^ {0,3}([-*_])( *\1){2,} *$/;

/** The blocks of `source`. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  // Assigned in close() too: typed by a cast so the compiler does not narrow it to null.
  let list = null as { t: 'ul' | 'ol'; start: number; items: string[][] } | null;
  const close = () => {
    if (para.length) blocks.push({ t: 'p', c: parseInline(para.join('\n')) });
    if (list) blocks.push({ t: list.t, start: list.start, items: list.items.map((item) => parseInline(item.join('\n'))) });
    para = [];
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    let m: RegExpExecArray | null;
    if (fence) {
      close();
      const marker = fence[1]!;
      const body: string[] = [];
      while (++i < lines.length && !new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[i]!)) body.push(lines[i]!);
      blocks.push({ t: 'pre', v: body.join('\n') });
    } else if (!line.trim()) {
      close();
    } else if (RULE.test(line)) {
      close();
    } else if ((m = BULLET.exec(line) ?? NUMBERED.exec(line))) {
      const t = m.length === 3 ? 'ol' : 'ul';
      if (para.length || list?.t !== t) close();
      list ??= { t, start: t === 'ol' ? Number(m[1]) : 1, items: [] };
      list.items.push([m[m.length - 1]!]);
    } else if ((m = HEADING.exec(line))) {
      close();
      blocks.push({ t: 'p', c: [{ t: 'strong', c: parseInline(m[1]!) }] });
    } else if (list) {
      // A line under an item continues it.
      list.items[list.items.length - 1]!.push(line.trim());
    } else {
      para.push(line);
    }
  }
  close();
  return blocks;
}

function inlineText(nodes: Inline[]): string {
  return nodes.map((n) => (n.t === 'br' ? '\n' : 'v' in n ? n.v : inlineText(n.c))).join('');
}

/** What the answer says, as plain text (for the live region that announces it). */
export function markdownText(source: string): string {
  return parseMarkdown(source)
    .map((b) => (b.t === 'pre' ? b.v : b.t === 'p' ? inlineText(b.c) : b.items.map(inlineText).join('\n')))
    .join('\n');
}

type Builder = Pick<Document, 'createElement' | 'createTextNode' | 'createDocumentFragment'>;

function buildInline(doc: Builder, nodes: Inline[]): Node[] {
  return nodes.map((node) => {
    if (node.t === 'text') return doc.createTextNode(node.v);
    if (node.t === 'br') return doc.createElement('br');
    const el = doc.createElement(node.t);
    if (node.t === 'code') el.textContent = node.v;
    else el.append(...buildInline(doc, node.c));
    if (node.t === 'a') {
      el.setAttribute('href', node.href);
      el.setAttribute('rel', 'noopener noreferrer nofollow');
      el.setAttribute('target', '_blank');
    }
    return el;
  });
}

/** `source` as DOM nodes, built element by element; no string is ever parsed as HTML. */
export function renderMarkdown(doc: Builder, source: string): DocumentFragment {
  const out = doc.createDocumentFragment();
  for (const block of parseMarkdown(source)) {
    let el: HTMLElement;
    if (block.t === 'pre') {
      el = doc.createElement('pre');
      const code = doc.createElement('code');
      code.textContent = block.v;
      el.append(code);
    } else if (block.t === 'p') {
      el = doc.createElement('p');
      el.append(...buildInline(doc, block.c));
    } else {
      el = doc.createElement(block.t);
      if (block.t === 'ol' && block.start !== 1) el.setAttribute('start', String(block.start));
      for (const item of block.items) {
        const li = doc.createElement('li');
        li.append(...buildInline(doc, item));
        el.append(li);
      }
    }
    out.append(el);
  }
  return out;
}
