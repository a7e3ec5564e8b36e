import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserHarness, poll } from '../../test/support/browser.js';

/**
 * The visitor's side of hand-off (issue 35) in Chromium: the built chat-embed.js on a host page of another
 * loopback origin under a strict CSP, against a small scripted server that speaks the public chat API as
 * the wire contract gives it (config with `handoff`, `…/session/handoff`, the history with `status` and
 * operator and event messages, `…/session/events` with ids and `Last-Event-ID`). The real server's own
 * end-to-end test (two browser contexts, the Inbox) lives beside the server code; this one pins the widget:
 * "Talk to a person", the statuses in words, operator replies live and after a dropped connection and a
 * reload, delivered messages without a typing dot, the ended chat, the lead card when nobody is available,
 * the launcher's mark, axe in each state, the keyboard.
 */
const CHAT = 'chat_handoff';
const WELCOME = 'Hi! Ask me about shipping.';
const ASKED = 'I have asked a person to join. It may take a few minutes.';
const NOBODY = 'Nobody is available right now. Leave your details and we will get back to you.';
const CONSENT = 'I agree that Acme may contact me.';

type Role = 'user' | 'assistant' | 'operator' | 'event' | 'lead';
interface Stored {
  id: string;
  role: Role;
  content: string;
  author?: { name: string } | null;
  /** Event messages: the status they record. */
  status?: string;
  assigneeName?: string | null;
  lead?: Record<string, unknown>;
}

/** One visitor's conversation as the server would keep it, and the streams open on it. */
class ScriptedChat {
  messages: Stored[] = [];
  status = 'bot';
  streams = new Set<ServerResponse>();
  /** The Last-Event-ID of every stream request, in order ('' for none). */
  resumedFrom: string[] = [];
  /** The header list of every preflight. */
  preflights: string[] = [];
  /** Outside office hours: the hand-off answers "nobody" and offers the lead card. */
  afterHours = false;
  private next = 0;

  /** The id the next stored message gets. */
  peekId(): string {
    return `msg_${String(this.next + 1).padStart(4, '0')}`;
  }

  store(message: Omit<Stored, 'id'>): Stored {
    const stored = { id: `msg_${String(++this.next).padStart(4, '0')}`, ...message };
    this.messages.push(stored);
    this.publish(stored);
    return stored;
  }

  /** The stream's blocks for one stored message: an event message is also its `status` event, under the same id. */
  blocks(m: Stored): string {
    if (m.role === 'user' || m.role === 'lead') return '';
    let out = `id: ${m.id}\nevent: message\ndata: ${JSON.stringify({ id: m.id, role: m.role, content: m.content, author: m.author ?? null, createdAt: new Date().toISOString() })}\n\n`;
    if (m.role === 'event') out += `id: ${m.id}\nevent: status\ndata: ${JSON.stringify({ status: m.status, assigneeName: m.assigneeName ?? null })}\n\n`;
    return out;
  }

  publish(m: Stored): void {
    const text = this.blocks(m);
    if (text) for (const res of this.streams) res.write(text);
  }

  change(status: string, content: string, assigneeName: string | null = null): void {
    this.status = status;
    this.store({ role: 'event', content, status, assigneeName });
  }

  history() {
    return {
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      status: this.status,
      messages: this.messages.map((m) =>
        m.role === 'lead' ? { role: 'lead', id: m.id, ...m.lead } : m.role === 'operator' ? { role: m.role, id: m.id, content: m.content, author: m.author } : { role: m.role, id: m.id, content: m.content },
      ),
    };
  }

  /** Breaks every open stream (a network drop): the widget must come back with Last-Event-ID. */
  drop(): void {
    for (const res of this.streams) res.destroy();
    this.streams.clear();
  }
}

describe('chat-embed.js hand-off, against a scripted server', () => {
  const servers: Server[] = [];
  const harness = createBrowserHarness({ artifacts: 'chat-widget-handoff' });
  const { newContext, newPage, pageErrors, blocked } = harness;
  let api = '';
  let site = '';
  let chat = new ScriptedChat();
  let context: BrowserContext;
  let page: Page;
  const dist = resolve(import.meta.dirname, '../../dist/web');
  const embed = readFileSync(resolve(dist, 'chat-embed.js'), 'utf8');
  const panel = (JSON.parse(readFileSync(resolve(dist, 'manifest.json'), 'utf8')) as Record<string, string>)['chat-panel.js']!;

  const listen = async (server: Server) => {
    servers.push(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const body = (req: IncomingMessage) =>
    new Promise<string>((done) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk));
      req.on('end', () => done(text));
    });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', api);
    if (url.pathname === '/chat-embed.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(embed);
    // The panel's module, imported by chat-embed.js on the first open: as the real server sends it (a module
    // script from another origin is fetched with CORS).
    if (url.pathname === `/assets/${panel}`) {
      return void res.writeHead(200, { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' }).end(readFileSync(resolve(dist, panel)));
    }
    const cors = { 'access-control-allow-origin': site, vary: 'Origin', 'cache-control': 'no-store' };
    const send = (status: number, data: unknown) => void res.writeHead(status, { ...cors, 'content-type': 'application/json' }).end(JSON.stringify(data));
    if (req.headers.origin !== site) return void res.writeHead(403).end();
    const path = url.pathname.replace(`/api/public/chats/${CHAT}`, '');
    if (req.method === 'OPTIONS') {
      chat.preflights.push(String(req.headers['access-control-request-headers'] ?? ''));
      // As the real server must: Last-Event-ID is no CORS-safelisted header, so it has to be allowed here.
      return void res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET, POST, OPTIONS', 'access-control-allow-headers': 'Authorization, Content-Type, Last-Event-ID', 'access-control-max-age': '86400' }).end();
    }
    if (path === '' && req.method === 'GET') {
      return send(200, { success: true, data: { chatId: CHAT, welcomeMessage: WELCOME, leadCapture: true, handoff: { enabled: true, available: !chat.afterHours }, branding: { name: 'Acme', primaryColor: '#0b7a3e', backgroundColor: '#ffffff', textColor: '#1f2328', fontFamily: null, logoUrl: null } } });
    }
    if (path === '/sessions' && req.method === 'POST') return send(201, { success: true, data: { token: 'chs_scripted', expiresAt: new Date(Date.now() + 86_400_000).toISOString() } });
    if (req.headers.authorization !== 'Bearer chs_scripted') return send(401, { success: false, code: 'UNAUTHORIZED', error: 'This chat session has ended. Start a new chat to continue.' });
    if (path === '/session' && req.method === 'GET') return send(200, { success: true, data: chat.history() });
    if (path === '/session/handoff' && req.method === 'POST') {
      if (chat.status === 'waiting' || chat.status === 'human') return send(409, { success: false, code: 'CONFLICT', error: 'A person has already been asked to join.' });
      if (chat.afterHours) {
        chat.store({ role: 'assistant', content: NOBODY });
        chat.store({ role: 'lead', content: '', lead: { toolCallId: 'call_nobody', status: 'pending', fields: [{ name: 'email', label: 'Email', type: 'email', required: true }], values: {}, consentText: CONSENT } });
        return send(200, { success: true, data: { status: 'bot', message: NOBODY } });
      }
      chat.change('waiting', 'Waiting for a person');
      return send(200, { success: true, data: { status: 'waiting', message: ASKED } });
    }
    if (path === '/session/messages' && req.method === 'POST') {
      const { content } = JSON.parse(await body(req)) as { content: string };
      chat.store({ role: 'user', content });
      res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
      if (chat.status === 'waiting' || chat.status === 'human') return void res.end('event: start\ndata: {"messageId":"msg_x"}\n\nevent: finish\ndata: {"status":"delivered"}\n\n');
      // The answer's id comes first; the answer is stored (and published to the live stream) when it is done.
      const id = chat.peekId();
      res.write(`event: start\ndata: {"messageId":"${id}"}\n\n`);
      await new Promise((done) => setTimeout(done, 100));
      const answer = chat.store({ role: 'assistant', content: `You said: ${content}` });
      return void res.end(`event: text-delta\ndata: ${JSON.stringify({ delta: answer.content })}\n\nevent: finish\ndata: {"status":"complete"}\n\n`);
    }
    if (path === '/session/events' && req.method === 'GET') {
      const from = String(req.headers['last-event-id'] ?? '');
      chat.resumedFrom.push(from);
      res.writeHead(200, { ...cors, 'content-type': 'text/event-stream' });
      res.flushHeaders();
      // Every later message from the store, then live.
      const after = from ? chat.messages.findIndex((m) => m.id === from) + 1 : chat.messages.length;
      for (const m of chat.messages.slice(after)) res.write(chat.blocks(m));
      res.write(': keep-alive\n\n');
      chat.streams.add(res);
      res.on('close', () => chat.streams.delete(res));
      return;
    }
    send(404, { success: false, code: 'NOT_FOUND', error: 'No such route.' });
  }

  beforeAll(async () => {
    const apiServer = createServer((req, res) => void serve(req, res));
    api = await listen(apiServer);
    site = await listen(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': `default-src 'none'; script-src ${api}; connect-src ${api}` });
        res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Parcel shop</h1></main><script async src="${api}/chat-embed.js" data-svc-chat="${CHAT}"></script></body></html>`);
      }),
    );
    await harness.start(api);
    context = await newContext();
    page = await newPage(context);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  const launcher = () => page.getByRole('button', { name: /^Chat with Acme/ });
  const dialog = () => page.getByRole('dialog', { name: 'Acme' });
  const transcript = () => dialog().getByRole('log', { name: 'Conversation' });
  const message = () => dialog().getByLabel('Your message');
  const talk = () => dialog().getByRole('button', { name: 'Talk to a person' });
  const lines = (text: string) => transcript().locator('.sc-ev', { hasText: text });
  const recordAnnouncements = () =>
    page.evaluate(`(() => {
      window.__said = [];
      if (window.__listening) return;
      window.__listening = true;
      const status = document.querySelector('svc-chat').shadowRoot.querySelector('[role=status]');
      new MutationObserver(() => status.textContent && window.__said.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
    })()`);
  const said = () => page.evaluate<string[]>('window.__said');
  const focused = () => page.evaluate<string>("(() => { const inner = document.activeElement?.shadowRoot?.activeElement; return inner ? (inner.getAttribute('aria-label') || inner.textContent || inner.tagName).trim() : document.activeElement?.tagName ?? ''; })()");

  it('"Talk to a person" asks for one: the server\'s words, "Waiting for a person…" once, announced, focus in the message box', async () => {
    await page.goto(`${site}/`);
    await launcher().click();
    await transcript().getByText(WELCOME).waitFor();
    await talk().waitFor();
    await harness.axe(page, 'widget with "Talk to a person"');
    await page.screenshot({ path: 'test-artifacts/chat-widget-handoff/talk-1280.png' });
    await recordAnnouncements();
    await talk().click();
    await transcript().getByText(ASKED).waitFor();
    await lines('Waiting for a person\u2026').waitFor();
    expect(await talk().count()).toBe(0);
    expect(await focused()).toBe('TEXTAREA');
    await poll(() => said()).toEqual([`${ASKED} Waiting for a person\u2026`]);
    // The live stream opened for the new session; its copies of the change are not drawn again.
    await poll(() => chat.streams.size).toBe(1);
    await page.waitForTimeout(300);
    expect(await transcript().locator('.sc-ev').count()).toBe(1);
    expect(await said()).toEqual([`${ASKED} Waiting for a person\u2026`]);
  });

  it('a message while waiting is delivered: marked sent, no typing dot', async () => {
    await message().fill('Is anyone there?');
    await message().press('Enter');
    const mine = transcript().locator('.sc-user', { hasText: 'Is anyone there?' });
    await mine.getByText('Sent').waitFor();
    expect(await transcript().getByText('\u2026', { exact: true }).count()).toBe(0);
    expect(await transcript().locator('.sc-bot').count()).toBe(2);
  });

  it('the operator joins and replies live, within a second: "Anna joined", a bubble with her name, her text never as HTML', async () => {
    await recordAnnouncements();
    const started = Date.now();
    chat.change('human', 'Anna took over', 'Anna');
    chat.store({ role: 'operator', content: 'Hi, I am **Anna**. <img src=x onerror="window.__pwned=1"> How can I help?', author: { name: 'Anna' } });
    const bubble = transcript().locator('.sc-op');
    await bubble.getByText('How can I help?', { exact: false }).waitFor();
    // About a second on a quiet machine; room for a loaded CI machine, and still no waiting for a reconnection.
    expect(Date.now() - started).toBeLessThan(3_000);
    // The status line in the widget's words took the place of the event message's.
    expect(await lines('Anna joined').count()).toBe(1);
    expect(await lines('Anna took over').count()).toBe(0);
    expect(await bubble.locator('.sc-who').textContent()).toBe('Anna');
    await bubble.locator('strong', { hasText: 'Anna' }).waitFor();
    expect(await page.evaluate<number>("document.querySelector('svc-chat').shadowRoot.querySelectorAll('.sc-op img, [onerror]').length")).toBe(0);
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    await poll(() => said()).toEqual(['Anna joined Anna: Hi, I am Anna. <img src=x onerror="window.__pwned=1"> How can I help?']);
    await page.waitForTimeout(300);
    expect(await said()).toHaveLength(1);
    await harness.axe(page, 'widget with an operator');
    await page.screenshot({ path: 'test-artifacts/chat-widget-handoff/human-1280.png' });
    await page.setViewportSize({ width: 375, height: 700 });
    try {
      await poll(() => dialog().boundingBox()).toEqual({ x: 0, y: 0, width: 375, height: 700 });
      await harness.axe(page, 'widget with an operator at 375 px');
      await page.screenshot({ path: 'test-artifacts/chat-widget-handoff/human-375.png' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('after a dropped connection it comes back with Last-Event-ID and draws what it missed, once', async () => {
    const last = chat.messages.at(-1)!.id;
    const connections = chat.resumedFrom.length;
    chat.drop();
    // Written while the widget is away: only the replay can bring it.
    chat.store({ role: 'operator', content: 'Sorry, my connection dropped. Still there?', author: { name: 'Anna' } });
    await transcript().getByText('Sorry, my connection dropped. Still there?').waitFor({ timeout: 10_000 });
    expect(chat.resumedFrom.slice(connections)).toEqual([last]);
    expect(await transcript().locator('.sc-op').count()).toBe(2);
    expect(await lines('Anna joined').count()).toBe(1);
  });

  it('keeps everything across a reload, and the stream resumes from the last message', async () => {
    await page.reload();
    await launcher().click();
    await transcript().getByText('Sorry, my connection dropped. Still there?').waitFor();
    expect(await transcript().locator('.sc-op').count()).toBe(2);
    expect(await transcript().locator('.sc-op .sc-who').first().textContent()).toBe('Anna');
    // The history's event messages, in the server's words.
    await lines('Anna took over').waitFor();
    expect(await talk().count()).toBe(0);
    await poll(() => chat.resumedFrom.at(-1)).toBe(chat.messages.at(-1)!.id);
    // Nothing drawn twice by the stream.
    await page.waitForTimeout(300);
    expect(await transcript().locator('.sc-op').count()).toBe(2);
  });

  it('marks the launcher when the person writes while the panel is closed, and keeps listening', async () => {
    await dialog().getByRole('button', { name: 'Close chat' }).click();
    chat.store({ role: 'operator', content: 'I found your parcel.', author: { name: 'Anna' } });
    await page.getByRole('button', { name: 'Chat with Acme (new message)' }).waitFor();
    await launcher().click();
    await transcript().getByText('I found your parcel.').waitFor();
    expect(await page.getByRole('button', { name: 'Chat with Acme (new message)' }).count()).toBe(0);
  });

  it('back to the agent: "You\'re chatting with Acme again", the agent answers, "Talk to a person" returns', async () => {
    await recordAnnouncements();
    chat.change('bot', 'Back to the agent');
    await lines("You're chatting with Acme again").waitFor();
    await talk().waitFor();
    await poll(() => said()).toEqual(["You're chatting with Acme again"]);
    await page.waitForTimeout(300);
    expect(await said()).toHaveLength(1);
    await message().fill('Thanks!');
    await message().press('Enter');
    await transcript().getByText('You said: Thanks!').waitFor();
    await page.waitForTimeout(300);
    // The answer came on both streams: drawn once.
    expect(await transcript().getByText('You said: Thanks!').count()).toBe(1);
  });

  it('an ended chat: "This conversation has ended", the message box off, focus on "Start a new chat", which starts one', async () => {
    await message().focus();
    chat.change('closed', 'Closed');
    await lines('This conversation has ended').waitFor();
    await poll(() => message().isDisabled()).toBe(true);
    expect(await dialog().getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await talk().count()).toBe(0);
    expect(await focused()).toBe('Start a new chat');
    await harness.axe(page, 'widget, the chat ended');
    await page.screenshot({ path: 'test-artifacts/chat-widget-handoff/ended-1280.png' });
    // The stream is closed with it.
    await poll(() => chat.streams.size).toBe(0);
    await page.keyboard.press('Enter');
    chat = Object.assign(new ScriptedChat(), { afterHours: true });
    await poll(() => transcript().locator('.sc-msg').count()).toBe(1);
    expect(await message().isDisabled()).toBe(false);
    expect(await focused()).toBe('TEXTAREA');
    expect(await page.evaluate<string | null>(`localStorage.getItem('svc-chat:${CHAT}')`)).toBeNull();
  });

  it('nobody available: the agent says so and the lead card comes through the lead-capture path', async () => {
    await talk().click();
    await transcript().getByText(NOBODY).waitFor();
    const card = transcript().getByRole('group', { name: 'Your contact details' });
    await card.getByLabel(/^Email/).waitFor();
    expect(await card.getByLabel(CONSENT).isChecked()).toBe(false);
    expect(await lines('Waiting for a person').count()).toBe(0);
    await talk().waitFor();
    await page.waitForTimeout(300);
    expect(await transcript().getByRole('group', { name: 'Your contact details' }).count()).toBe(1);
    expect(await transcript().getByText(NOBODY).count()).toBe(1);
    await harness.axe(page, 'widget, nobody available, the lead card');
  });

  it('"Talk to a person" is reached by keyboard', async () => {
    await message().focus();
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      seen.add(await focused());
    }
    expect([...seen]).toEqual(expect.arrayContaining(['Talk to a person', 'TEXTAREA', 'Send', 'Close chat']));
  });

  it('met no page error, no CSP violation, and reached nothing outside loopback', async () => {
    expect(await page.evaluate<string[]>('window.__violations')).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
