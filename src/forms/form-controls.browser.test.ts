import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, poll } from '../../test/support/browser.js';
import { BASE_EMAIL, COMPARED_ATTRIBUTES, CONTROL_ROWS, expectedBody, rowConfig, type ControlRow } from '../../test/support/form-control-rows.js';
import { renderFormPage } from './hosted-html.js';
import { postedBody } from './hosted-page.js';

/**
 * The control table (test/support/form-control-rows.ts) in Chromium: every row drawn by the server
 * (its HTML, parsed by the browser, with the script left out) and by the browser renderer
 * (dist/web/form-renderer.js), read back from the DOM, filled in, and submitted: the server's form
 * as a real no-JS post would encode it (into `postedBody`), the renderer's through its own submit
 * (the request body it sends). Both must draw the row's element and send the row's body.
 */

const root = resolve(import.meta.dirname, '../..');
const dist = join(root, 'dist/web');

/**
 * Page side (this file is typed for Node, so page code is a string): reads a control back and fills a
 * row in. `__shape` writes an element as markup with its attributes sorted and the control's id as `#`,
 * so the server's block and the renderer's compare whole: wrapper, label, star, input, error line.
 */
const PAGE_HELPERS = `
  window.__shape = (node, id) => {
    if (node.nodeType === 3) return JSON.stringify(node.textContent);
    const ref = (a) => ['id', 'for', 'aria-describedby'].includes(a.name) && a.value.startsWith(id);
    const attrs = [...node.attributes].map((a) => a.name + '=' + JSON.stringify(ref(a) ? '#' + a.value.slice(id.length) : a.value)).sort();
    return '<' + [node.localName, ...attrs].join(' ') + '>' + [...node.childNodes].map((child) => window.__shape(child, id)).join('') + '</' + node.localName + '>';
  };
  window.__control = (key) => {
    const form = document.querySelector('form');
    const elements = [...form.elements];
    const el = elements.find((e) => e.name === key);
    const attrs = {};
    for (const name of ${JSON.stringify(COMPARED_ATTRIBUTES)}) if (el.hasAttribute(name)) attrs[name] = el.getAttribute(name);
    const label = form.querySelector('label[for="' + el.id + '"]');
    const element = { tag: el.tagName.toLowerCase(), attrs, label: [...label.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('') };
    if (el.tagName === 'SELECT') element.options = [...el.options].map((o) => o.value);
    const names = elements.map((e) => e.name).filter((n) => n && n !== '_hp' && n !== 'consentVersion');
    const honeypot = form.querySelector('.sf-hp');
    return {
      element,
      star: Boolean(label.querySelector('span[aria-hidden="true"]')),
      names,
      block: window.__shape(el.closest('.sf-f'), el.id),
      honeypot: window.__shape(honeypot, honeypot.querySelector('input').id),
    };
  };
  window.__fill = (key, input, email) => {
    const byName = (name) => [...document.querySelector('form').elements].find((e) => e.name === name);
    if (key !== 'email') byName('email').value = email;
    if (typeof input === 'boolean') byName(key).checked = input;
    else byName(key).value = input;
    byName('consent').checked = true;
  };
`;

/** What the API answers when a test sets `window.__refuse` to a field: the server's page marks the same field with it. */
const REFUSAL = 'Refused by the API.';

/**
 * The renderer's page: form-renderer.js draws the row's form; its fetch records the body and answers
 * success, or INVALID_FIELD naming `window.__refuse` while that is set.
 */
const rendererPage = (row: ControlRow) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>renderer</title>
<link rel="stylesheet" href="/form.css"></head><body><main id="root"></main><script type="module">
import { renderForm } from '/form-renderer.js';
renderForm(document.getElementById('root'), ${JSON.stringify(rowConfig(row)).replace(/</g, '\\u003c')}, {
  headingLevel: 1,
  newKey: () => 'key',
  fetch: async (url, init) => {
    window.__sent = init.body;
    if (window.__refuse) {
      const refusal = { success: false, code: 'INVALID_FIELD', field: window.__refuse, error: ${JSON.stringify(REFUSAL)} };
      return new Response(JSON.stringify(refusal), { status: 400, headers: { 'content-type': 'application/json' } });
    }
    return new Response(JSON.stringify({ success: true, data: { ok: true, successMessage: 'Thanks.', redirectUrl: null } }), { status: 200, headers: { 'content-type': 'application/json' } });
  },
});
</script></body></html>`;

describe('the control table in Chromium: server HTML and browser renderer', () => {
  const harness = createBrowserHarness({ artifacts: 'form-controls' });
  let server: Server;
  let origin: string;
  let context: BrowserContext;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://local');
      const row = CONTROL_ROWS[Number(url.searchParams.get('row'))];
      const send = (type: string, body: string | Buffer) => res.writeHead(200, { 'content-type': type }).end(body);
      // The page's own script is left out: this is the server's form as a visitor without JavaScript gets it.
      if (url.pathname === '/form-page.js') return send('text/javascript', '');
      if (url.pathname === '/form-renderer.js') return send('text/javascript', readFileSync(join(dist, 'form-renderer.js')));
      if (url.pathname === '/form.css') return send('text/css', readFileSync(join(dist, 'form.css')));
      if (row && url.pathname === '/server') {
        // ?refused: the page after a no-JS post the API refused, naming the row's field.
        const refused = url.searchParams.has('refused') ? { errors: [{ key: row.key, message: REFUSAL }], summary: REFUSAL } : {};
        return send('text/html; charset=utf-8', renderFormPage(rowConfig(row), { css: '/form.css', script: '/form-page.js' }, { embed: false, utm: {}, ...refused }).html);
      }
      if (row && url.pathname === '/renderer') return send('text/html; charset=utf-8', rendererPage(row));
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await harness.start(origin);
    context = await harness.newContext();
    await context.addInitScript(PAGE_HELPERS);
  });

  afterAll(async () => {
    await harness.close();
    await new Promise((done) => server?.close(done));
  });

  async function open(path: string): Promise<Page> {
    const page = await harness.newPage(context);
    await page.goto(`${origin}${path}`);
    await page.locator('form').waitFor();
    return page;
  }

  type Read = { element: ControlRow['element']; star: boolean; names: string[]; block: string; honeypot: string };
  const read = (page: Page, row: ControlRow) => page.evaluate<Read>(`window.__control(${JSON.stringify(row.key)})`);
  const fill = (page: Page, row: ControlRow) => page.evaluate(`window.__fill(${JSON.stringify(row.key)}, ${JSON.stringify(row.input)}, ${JSON.stringify(BASE_EMAIL)})`);

  it.each(CONTROL_ROWS.map((row, index) => [row.name, row, index] as const))('%s', async (_name, row, index) => {
    const serverPage = await open(`/server?row=${index}`);
    const rendererPageTab = await open(`/renderer?row=${index}`);
    try {
      const fromServer = await read(serverPage, row);
      const fromRenderer = await read(rendererPageTab, row);
      // Soft: a broken rule is reported for every renderer it breaks, not just the first.
      expect.soft(fromServer.element, 'server HTML').toEqual(row.element);
      expect.soft(fromRenderer.element, 'browser renderer').toEqual(row.element);
      expect.soft(fromServer.star, 'server star').toBe('required' in row.element.attrs);
      expect.soft(fromRenderer.star, 'renderer star').toBe('required' in row.element.attrs);
      expect.soft(fromRenderer.names, 'control order').toEqual(fromServer.names);
      // The whole block, as markup: the server's value="on" of a checkbox is the browser's default, the one allowed difference.
      expect.soft(fromRenderer.block, 'field block').toEqual(fromServer.block.replace(' value="on"', ''));
      expect.soft(fromRenderer.honeypot, 'honeypot').toEqual(fromServer.honeypot);

      // The no-JS post: the browser's own encoding of the server's form, read as the server reads it.
      await fill(serverPage, row);
      const encoded = await serverPage.evaluate<string>("new URLSearchParams(new FormData(document.querySelector('form'))).toString()");
      expect.soft(postedBody(rowConfig(row), new Map(new URLSearchParams(encoded))), 'no-JS post body').toEqual(expectedBody(row));

      // A refusal naming the field (the consent box is `consentVersion` to the API): both mark the same block the same way.
      await fill(rendererPageTab, row);
      await rendererPageTab.evaluate(`window.__refuse = ${JSON.stringify(row.key === 'consent' ? 'consentVersion' : row.key)}`);
      await rendererPageTab.getByRole('button', { name: 'Submit' }).click();
      await poll(() => rendererPageTab.evaluate<string | null>(`document.querySelector('[name="${row.key}"]').getAttribute('aria-invalid')`)).toBe('true');
      const refusedServer = await open(`/server?row=${index}&refused`);
      const markedServer = await read(refusedServer, row);
      await refusedServer.close();
      expect.soft((await read(rendererPageTab, row)).block, 'marked field block').toEqual(markedServer.block.replace(' value="on"', ''));

      // The script: the renderer's own submit (its checks must pass), the body it sends.
      await rendererPageTab.evaluate('window.__refuse = null; window.__sent = null');
      await rendererPageTab.getByRole('button', { name: 'Submit' }).click();
      await poll(() => rendererPageTab.evaluate<string | null>('window.__sent ?? null')).not.toBeNull();
      expect.soft(JSON.parse(await rendererPageTab.evaluate<string>('window.__sent')), 'script body').toEqual(expectedBody(row));
    } finally {
      await serverPage.close();
      await rendererPageTab.close();
    }
  });

  it('raised no page error', () => {
    expect(harness.pageErrors).toEqual([]);
  });
});
