import { describe, expect, it } from 'vitest';
import { markdownText, parseMarkdown, renderMarkdown, safeHref } from './markdown.js';

/**
 * The model's text is untrusted. renderMarkdown is run here against a recording stand-in for the
 * document (web/ tests run in Node, with no DOM): every element it creates and every attribute it
 * sets is seen, and the result is serialized with every text escaped, so markup in the model's text
 * shows up as escaped text, never as an element. The browser suite draws the same in Chromium
 * (src/chat/widget.browser.test.ts).
 */
type FakeNode = { tag: string; text?: string; attrs: [string, string][]; children: FakeNode[] };

function fakeDocument() {
  const created: string[] = [];
  const attributes: string[] = [];
  const node = (tag: string, text?: string): FakeNode & Record<string, unknown> => {
    const self: FakeNode & Record<string, unknown> = {
      tag,
      text,
      attrs: [],
      children: [],
      append(...nodes: (FakeNode | string)[]) {
        for (const n of nodes) {
          if (typeof n === 'string') self.children.push(node('#text', n));
          else if (n.tag === '#fragment') self.children.push(...n.children);
          else self.children.push(n);
        }
      },
      setAttribute(name: string, value: string) {
        attributes.push(name);
        self.attrs.push([name, String(value)]);
      },
    };
    Object.defineProperty(self, 'textContent', { set: (value: string) => (self.children = [node('#text', value)]) });
    return self;
  };
  const doc = {
    createElement: (tag: string) => {
      created.push(tag);
      return node(tag);
    },
    createTextNode: (text: string) => node('#text', text),
    createDocumentFragment: () => node('#fragment'),
  };
  return { doc: doc as unknown as Document, created, attributes };
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
function serialize(n: FakeNode): string {
  if (n.tag === '#text') return escape(n.text ?? '');
  const inner = n.children.map(serialize).join('');
  if (n.tag === '#fragment') return inner;
  const attrs = n.attrs.map(([k, v]) => ` ${k}="${escape(v)}"`).join('');
  return n.tag === 'br' ? `<br${attrs}>` : `<${n.tag}${attrs}>${inner}</${n.tag}>`;
}

const ALLOWED_TAGS = new Set(['p', 'strong', 'em', 'code', 'pre', 'ul', 'ol', 'li', 'a', 'br']);
const LINK = 'rel="noopener noreferrer nofollow" target="_blank"';

function render(source: string) {
  const { doc, created, attributes } = fakeDocument();
  const html = serialize(renderMarkdown(doc, source) as unknown as FakeNode);
  for (const tag of created) expect(ALLOWED_TAGS.has(tag), `created <${tag}>`).toBe(true);
  for (const name of attributes) expect(['href', 'rel', 'target', 'start']).toContain(name);
  return html;
}

describe('renderMarkdown', () => {
  it('draws paragraphs, strong, em, code, fenced code, lists and links', () => {
    expect(render('Hello **there**, *you* and `x < y`.\nNext line.\n\nSecond paragraph.')).toBe(
      '<p>Hello <strong>there</strong>, <em>you</em> and <code>x &lt; y</code>.<br>Next line.</p><p>Second paragraph.</p>',
    );
    expect(render('```js\nconst a = "<b>";\n\nif (a) go();\n```')).toBe('<pre><code>const a = &quot;&lt;b&gt;&quot;;\n\nif (a) go();</code></pre>');
    expect(render('Options:\n- one\n- **two**\n  still two\n\n3. three\n4. four')).toBe(
      '<p>Options:</p><ul><li>one</li><li><strong>two</strong><br>still two</li></ul><ol start="3"><li>three</li><li>four</li></ol>',
    );
    expect(render('1. a\n2. b')).toBe('<ol><li>a</li><li>b</li></ol>');
    expect(render('See [our prices](https://example.com/prices?a=1&b=2 "Prices").')).toBe(
      `<p>See <a href="https://example.com/prices?a=1&amp;b=2" ${LINK}>our prices</a>.</p>`,
    );
    expect(render('## Opening hours\nMon–Fri')).toBe('<p><strong>Opening hours</strong></p><p>Mon–Fri</p>');
    expect(render('***bold and em***')).toBe('<p><strong><em>bold and em</em></strong></p>');
    expect(render('*a **b** c*')).toBe('<p><em>a <strong>b</strong> c</em></p>');
  });

  it('leaves what is not Markdown as typed: snake_case, lone stars, 2 * 3, escapes, unclosed code', () => {
    expect(render('call my_tool_name with 2 * 3 * 4 and a lone * star')).toBe('<p>call my_tool_name with 2 * 3 * 4 and a lone * star</p>');
    expect(render('\\*not em\\* and `unclosed')).toBe('<p>*not em* and `unclosed</p>');
    expect(render('_em_ here')).toBe('<p><em>em</em> here</p>');
  });

  it('turns bare http(s) addresses into links, without the sentence\'s punctuation', () => {
    expect(render('Go to https://example.com/a_b. Or (https://example.com/x)!')).toBe(
      `<p>Go to <a href="https://example.com/a_b" ${LINK}>https://example.com/a_b</a>. Or (<a href="https://example.com/x" ${LINK}>https://example.com/x</a>)!</p>`,
    );
  });

  it('renders HTML in the model\'s text as text: no element is made from it', () => {
    const { doc, created } = fakeDocument();
    const html = serialize(renderMarkdown(doc, '<img src=x onerror=alert(1)> and <script>alert(2)</script> <a href="javascript:alert(3)">x</a>') as unknown as FakeNode);
    expect(html).toBe('<p>&lt;img src=x onerror=alert(1)&gt; and &lt;script&gt;alert(2)&lt;/script&gt; &lt;a href=&quot;javascript:alert(3)&quot;&gt;x&lt;/a&gt;</p>');
    expect(created).toEqual(['p']);
    expect(render('**<img src=x onerror=alert(1)>**')).toBe('<p><strong>&lt;img src=x onerror=alert(1)&gt;</strong></p>');
    expect(render('```\n<img src=x onerror=alert(1)>\n```')).toBe('<pre><code>&lt;img src=x onerror=alert(1)&gt;</code></pre>');
    // What the browser suite sends through the real model stream.
    expect(render('Look: <img src=x onerror="window.__pwned=1"> and [click me](javascript:window.__pwned=2) or [our site](https://example.com/terms).')).toBe(
      `<p>Look: &lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt; and click me or <a href="https://example.com/terms" ${LINK}>our site</a>.</p>`,
    );
  });

  it('makes a link only of an absolute http(s) URL; any other keeps its text and loses its target', () => {
    for (const target of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'javascript&#58;alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'data:image/svg+xml;base64,PHN2Zz4=',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      '/relative/path',
      '//evil.example/x',
      'mailto:a@example.com',
    ]) {
      expect([target, render(`[click me](${target})`)]).toEqual([target, '<p>click me</p>']);
    }
    expect(render('javascript:alert(1) and data:text/html,x')).toBe('<p>javascript:alert(1) and data:text/html,x</p>');
    // A quote in the target stays inside the attribute's value (URL-encoded by the URL parser).
    expect(render('[x](https://example.com/"onmouseover="alert(1))')).toBe(`<p><a href="https://example.com/%22onmouseover=%22alert(1)" ${LINK}>x</a></p>`);
  });

  it('reads nested brackets, and never puts a link inside a link', () => {
    expect(render('[a [b] c](https://example.com)')).toBe(`<p><a href="https://example.com/" ${LINK}>a [b] c</a></p>`);
    expect(render('[[x]](https://example.com)')).toBe(`<p><a href="https://example.com/" ${LINK}>[x]</a></p>`);
    expect(render('[outer [inner](https://in.example)](https://out.example)')).toBe(`<p><a href="https://out.example/" ${LINK}>outer inner</a></p>`);
    expect(render('[a [b](https://example.com)')).toBe(`<p>[a <a href="https://example.com/" ${LINK}>b</a></p>`);
    expect(render('[not a link] (https://example.com)')).toBe(`<p>[not a link] (<a href="https://example.com/" ${LINK}>https://example.com</a>)</p>`);
    expect(render('[x](https://example.com/a_(b))')).toBe(`<p><a href="https://example.com/a_(b)" ${LINK}>x</a></p>`);
    expect(render('[**bold** link](https://example.com)')).toBe(`<p><a href="https://example.com/" ${LINK}><strong>bold</strong> link</a></p>`);
  });

  it('does work in proportion to the answer on unclosed markers and brackets, never its square', () => {
    // Bounded work per character (closers not found are remembered, brackets searched a bounded distance).
    // Compared as a ratio, the fastest of a few runs each, so a loaded machine slows both sides alike:
    // ten times the text takes about ten times as long (~10 ms and ~100 ms here); the square would be 100×.
    const nasty = (k: number) => '*_`['.repeat(k) + '('.repeat(k) + '**a'.repeat(k);
    const fastest = (source: string) => {
      let best = Infinity;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        parseMarkdown(source);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    render(nasty(100));
    const small = fastest(nasty(2_000));
    const large = fastest(nasty(20_000));
    expect(large / small).toBeLessThan(35);
  });
});

describe('safeHref and markdownText', () => {
  it('accepts only absolute http and https URLs', () => {
    expect(safeHref('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(safeHref('HTTP://EXAMPLE.com')).toBe('http://example.com/');
    expect(safeHref('ftp://example.com')).toBeNull();
    expect(safeHref('example.com')).toBeNull();
  });

  it('gives the plain text an announcement reads', () => {
    expect(markdownText('Hi **there**.\n\n- one\n- [two](https://example.com)\n\n```\ncode\n```')).toBe('Hi there.\none\ntwo\ncode');
    expect(parseMarkdown('')).toEqual([]);
  });
});
