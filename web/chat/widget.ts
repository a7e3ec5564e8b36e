import { MESSAGES, type ChatApi, type Outcome, type StreamHandlers } from './api.js';
import { chatName, type Launcher } from './launcher.js';
import { liveStream } from './live.js';
import { markdownText, renderMarkdown, safeHref } from './markdown.js';
import type { ChatConfig, ChatEvent, ChatStatus, HistoryMessage, LeadCard, LeadDecision, LeadValue } from './types.js';

/**
 * The visitor's chat: a launcher button and a chat panel (a modal dialog), drawn into `root` (the
 * embed's shadow root). Every server and model string reaches the DOM as text or through
 * renderMarkdown, which builds elements itself; nothing is parsed as HTML.
 *
 * Accessibility: the launcher is a named button; the panel a dialog labelled by its title, with Tab
 * kept inside while open, Escape closing it and focus returned to the launcher; the transcript a log
 * whose own announcements are off (it fills a token at a time) while one polite status region reads
 * each finished answer once, and each message or change the live stream brings.
 *
 * Hand-off (issue 35): with `config.handoff.enabled`, a "Talk to a person" button under the transcript
 * asks for a person. The conversation's status (bot, waiting, human, closed) comes from the history, the
 * hand-off answer and the live stream (live.ts), which also brings the operator's messages; while a
 * person is asked for or holds the chat, the visitor's messages are delivered without a typing dot.
 */
export interface TokenStore {
  get(): string | null;
  set(token: string): void;
  clear(): void;
}

export interface ChatWidgetOptions extends Launcher {
  api: ChatApi;
  tokens: TokenStore;
  /** The host page's address and its utm_* values, sent when a session starts. */
  page: () => { pageUrl?: string; utm?: Record<string, string> };
}

export const TEXT = {
  lookingUp: 'Looking that up\u2026',
  typing: '\u2026',
  placeholder: 'Type your message\u2026',
  cardTitle: 'Your contact details',
  submitted: 'Thanks, your details were sent.',
  declined: 'You chose not to share your details.',
  required: 'Please fill this in.',
  consent: 'Please tick the box to agree.',
  ended: 'Your chat has ended. Send a message to start a new one.',
  talk: 'Talk to a person',
  waiting: 'Waiting for a person\u2026',
  joined: (who: string) => `${who} joined`,
  back: (agent: string) => `You're chatting with ${agent} again`,
  closed: 'This conversation has ended',
  newChat: 'Start a new chat',
  sent: 'Sent',
  /** An operator without a name (an API key's reply). */
  team: 'Team',
};

const STATUSES = ['bot', 'waiting', 'human', 'closed'];

let widgets = 0;

/**
 * Draws the chat panel into the launcher's frame (launcher.ts: chat-embed.js drew both) and takes over the
 * launcher; `open` opens the panel, as the launcher does.
 */
export function mountChat(root: ShadowRoot, config: ChatConfig, options: ChatWidgetOptions): { open(): void } {
  const doc = root.ownerDocument;
  const { api, tokens, launcher, frame, icon } = options;
  const id = `sc${++widgets}-`;
  let fields = 0;
  const name = chatName(config);
  let busy = false;
  let loaded = false;
  let loading = false;
  let state: ChatStatus = 'bot';
  /** The open lead cards: a new message declines them (the server does the same). */
  const pendingCards = new Set<() => void>();
  /** The lead cards drawn, by tool call id: one offered again (the history read after a hand-off) is drawn once. */
  const cards = new Set<string>();
  /** The ids of the messages drawn, and the status lines by the id of their event message: the live stream's copies are skipped. */
  const seen = new Map<string, HTMLElement | null>();
  const live = liveStream(api, () => tokens.get(), heard);
  /**
   * The hand-off answer's words carry no id, and the server may store them (and publish them) as an agent
   * message: the answer's are not drawn when the stream brought them first (`streamed`), the stream's when the answer did (`told`).
   */
  let told = '';
  let streamed = '';
  /**
   * The live events that come while a request is answered (hold): drawn after it, so they find what it drew. The
   * stream's copy of an answer can arrive before the answer's own `start` is read: two connections, no order between them.
   */
  let held: ChatEvent[] | null = null;
  const person = () => state === 'waiting' || state === 'human';

  function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
    const element = doc.createElement(tag);
    for (const key in attrs) element.setAttribute(key, attrs[key]!);
    element.append(...children);
    return element;
  }

  // ── The panel ──
  const close = h('button', { type: 'button', class: 'sc-x', 'aria-label': 'Close chat' });
  close.append(icon('M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z'));
  const head = h('div', { class: 'sc-head' });
  const logo = safeHref(config.branding?.logoUrl ?? '');
  // The name is written beside it: the logo is decoration.
  if (logo) head.append(h('img', { class: 'sc-logo', src: logo, alt: '' }));
  head.append(h('h2', { class: 'sc-title', id: `${id}t` }, name), close);
  const log = h('div', { class: 'sc-log', role: 'log', 'aria-live': 'off', 'aria-label': 'Conversation', tabindex: '0' });
  const status = h('div', { class: 'sc-sr', role: 'status' });
  const input = h('textarea', { class: 'sc-in', id: `${id}m`, rows: '2', maxlength: '2000', placeholder: TEXT.placeholder, autocomplete: 'off' });
  const send = h('button', { type: 'submit', class: 'sc-btn' }, 'Send');
  const composer = h('form', { class: 'sc-form', novalidate: '' }, h('label', { class: 'sc-sr', for: input.id }, 'Your message'), input, send);
  const talk = h('button', { type: 'button', class: 'sc-btn sc-btn2' }, TEXT.talk);
  const fresh = h('button', { type: 'button', class: 'sc-btn sc-btn2' }, TEXT.newChat);
  const bar = h('div', { class: 'sc-bar' }, talk, fresh);
  /** The last delivered message's "Sent" (moved to each newer one). */
  const sent = h('span', { class: 'sc-sent' }, TEXT.sent);
  const panel = h('div', { class: 'sc-panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': `${id}t`, hidden: '' }, head, log, bar, composer, status);
  frame.append(panel);

  /** A fresh transcript (at first, and when a session ends): the welcome, status `bot`, no stream. */
  function welcome(): void {
    log.replaceChildren();
    pendingCards.clear();
    cards.clear();
    seen.clear();
    state = 'bot';
    live.want(false);
    live.last = undefined;
    if (config.welcomeMessage) bot().set(config.welcomeMessage);
    sync();
  }

  /**
   * The controls for the status, and the live stream: open while a session exists, the page is shown,
   * the chat is not closed and either the panel is open or a person is asked for or holds the chat
   * (their reply then marks the launcher). A hidden page or a closed panel drops it; the next one
   * resumes from the last event id, so nothing is lost. Focus on a control that goes away moves to the
   * message box (or, when the chat has ended, to "Start a new chat").
   */
  function sync(): void {
    const active = root.activeElement as HTMLButtonElement | null;
    const closed = state === 'closed';
    talk.hidden = !config.handoff?.enabled || state !== 'bot';
    fresh.hidden = !closed;
    bar.hidden = talk.hidden && !closed;
    input.disabled = send.disabled = closed;
    input.placeholder = closed ? TEXT.closed : TEXT.placeholder;
    if (active && (active.disabled || active.hidden)) (closed ? fresh : input).focus();
    live.want(Boolean(tokens.get()) && loaded && !loading && !doc.hidden && !closed && (!panel.hidden || person()));
  }
  doc.addEventListener('visibilitychange', sync);
  welcome();

  // ── Open, close, the focus trap ──
  function open(): void {
    panel.hidden = false;
    launcher.hidden = true;
    launcher.classList.remove('sc-new');
    launcher.setAttribute('aria-label', `Chat with ${name}`);
    input.focus();
    if (!loaded) void resume();
    sync();
  }
  function shut(): void {
    panel.hidden = true;
    launcher.hidden = false;
    launcher.focus();
    sync();
  }
  launcher.addEventListener('click', open);
  close.addEventListener('click', shut);

  const focusable = () =>
    Array.from(panel.querySelectorAll<HTMLElement>('button,input,select,textarea,a[href],[tabindex="0"]')).filter((el) => !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0);
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      return shut();
    }
    if (event.key !== 'Tab') return;
    const items = focusable();
    const active = root.activeElement as HTMLElement | null;
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (event.shiftKey ? active === first || !panel.contains(active) : active === last || !panel.contains(active)) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    }
  });

  // ── The transcript ──
  function nearBottom(): boolean {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 64;
  }
  function add(node: HTMLElement): HTMLElement {
    const follow = nearBottom();
    log.append(node);
    if (follow) log.scrollTop = log.scrollHeight;
    return node;
  }
  function user(text: string): HTMLElement {
    return add(h('div', { class: 'sc-msg sc-user' }, h('span', { class: 'sc-sr' }, 'You: '), text));
  }
  /** An operator's message: their name above it, its text through the same Markdown-as-elements path (untrusted). */
  function operator(who: string, text: string): string {
    add(h('div', { class: 'sc-msg sc-bot sc-op' }, h('p', { class: 'sc-who' }, who), h('div', {}, renderMarkdown(doc, text))));
    return `${who}: ${markdownText(text)}`;
  }
  /** A line across the transcript: a change of who is answering. */
  function line(text: string): HTMLElement {
    return add(h('p', { class: 'sc-ev' }, text));
  }
  /** An answer bubble: its Markdown redrawn whole as it grows, and a note under it (typing, looking up). */
  function bot() {
    const body = h('div');
    const note = h('p', { class: 'sc-note', hidden: '' });
    const el = add(h('div', { class: 'sc-msg sc-bot' }, h('span', { class: 'sc-sr' }, `${name}: `), body, note));
    let text = '';
    return {
      el,
      get text() {
        return text;
      },
      set(value: string) {
        const follow = nearBottom();
        text = value;
        body.replaceChildren(renderMarkdown(doc, text));
        if (follow) log.scrollTop = log.scrollHeight;
      },
      note(value: string) {
        note.textContent = value;
        note.hidden = !value;
      },
    };
  }
  function fail(message: string, speak = true): void {
    add(h('p', { class: 'sc-msg sc-bot sc-fail' }, message));
    if (speak) say(message);
  }
  function say(text: string): void {
    if (!text) return;
    // Cleared first, so the same words said twice are announced twice.
    status.textContent = '';
    setTimeout(() => (status.textContent = text), 50);
  }

  // ── Sessions ──
  async function session(): Promise<string | null> {
    const stored = tokens.get();
    if (stored) return stored;
    const started = await api.startSession(options.page());
    if (!started.ok) {
      fail(started.message);
      return null;
    }
    tokens.set(started.data.token);
    sync();
    return started.data.token;
  }

  /** The history of a stored session, drawn under the welcome; a session the server no longer knows is forgotten. */
  async function resume(): Promise<void> {
    loaded = true;
    const token = tokens.get();
    if (!token) return;
    busy = loading = true;
    const history = await api.history(token);
    busy = loading = false;
    if (!history.ok) {
      if (history.status === 401) tokens.clear();
      else fail(history.message);
      return sync();
    }
    for (const message of history.data.messages) {
      draw(message);
      // The live stream resumes after the last message.
      if (message.id) live.last = message.id;
    }
    become(history.data.status, null, false);
    sync();
    log.scrollTop = log.scrollHeight;
  }

  /** One message of the history or of the live stream; what it says, for the status region. */
  function draw(message: HistoryMessage): string {
    if (message.id) seen.set(message.id, null);
    if (message.role === 'user') user(message.content);
    else if (message.role === 'assistant' && message.content) {
      bot().set(message.content);
      return markdownText(message.content);
    } else if (message.role === 'operator') return operator(message.author?.name || TEXT.team, message.content);
    else if (message.role === 'event') {
      if (message.id) seen.set(message.id, line(message.content));
      return message.content;
    } else if (message.role === 'lead' && !cards.has(message.toolCallId)) {
      add(card(message));
      return `${name} asks for your contact details.`;
    }
    return '';
  }

  /**
   * The status now: the controls follow; unless `tell` is false (the history's), a line in the widget's own
   * words (which takes the place of the event message's, when that came first) and its text, for the status
   * region. Back to the agent from waiting (nobody came), the history is read again for the lead card the server offers.
   */
  function become(next: ChatStatus | undefined, who: string | null | undefined, tell = true, eventId?: string): string {
    if (!next || !STATUSES.includes(next)) return '';
    const before = state;
    state = next;
    let text = '';
    const drawn = eventId && seen.get(eventId);
    if (tell && (next !== before || who)) {
      text = next === 'waiting' ? TEXT.waiting : next === 'human' ? TEXT.joined(who || TEXT.team) : next === 'closed' ? TEXT.closed : TEXT.back(name);
      if (drawn) drawn.textContent = text;
      else if (eventId) seen.set(eventId, line(text));
      else line(text);
    } else {
      // Nothing changed (the hand-off answer said it already): its event message is not drawn either.
      if (drawn) drawn.remove();
      if (eventId) seen.set(eventId, null);
    }
    if (before === 'waiting' && next === 'bot') void offers();
    sync();
    return text;
  }

  /** The lead cards the history holds and the transcript does not (the server offers one when nobody was available). */
  async function offers(): Promise<void> {
    const token = tokens.get();
    const history = token ? await api.history(token) : null;
    if (history?.ok) say(history.data.messages.map((message) => (message.role === 'lead' && message.status === 'pending' ? draw(message) : '')).join(' '));
  }

  /** Holds the live events until the returned release (once; a hold already on is left to its owner). */
  function hold(): () => void {
    if (held) return () => {};
    held = [];
    return () => {
      const events = held;
      held = null;
      if (events?.length) heard(events);
    };
  }

  /** A read of the live stream: operator and agent messages, status changes, each drawn once and said together. */
  function heard(events: ChatEvent[]): void {
    if (held) return void held.push(...events);
    const said: string[] = [];
    for (const event of events) {
      const eventId = event.lastEventId;
      if (event.type === 'status') {
        // Its event message, read a moment ago, is replaced (or dropped): not said either.
        const drawn = eventId && seen.get(eventId);
        const at = drawn ? said.lastIndexOf(drawn.textContent!) : -1;
        if (at >= 0) said.splice(at, 1);
        said.push(become(event.status, event.assigneeName, true, eventId));
      }
      else if (event.type === 'message' && event.role !== 'user' && !seen.has(event.id || eventId || '')) {
        if (event.role === 'assistant') {
          if (event.content === told) {
            told = '';
            continue;
          }
          streamed = event.content;
        }
        said.push(draw({ ...event, id: event.id || eventId } as HistoryMessage));
      }
      else if (event.type === 'lead-capture') said.push(draw({ ...event, role: 'lead' } as HistoryMessage));
    }
    const text = said.filter(Boolean).join(' ');
    if (!text) return;
    say(text);
    if (panel.hidden) {
      launcher.classList.add('sc-new');
      launcher.setAttribute('aria-label', `Chat with ${name} (new message)`);
    }
  }

  /**
   * One request whose answer streams: text into a bubble (its Markdown redrawn once per read),
   * "Looking that up…" while a tool runs, a lead card, an error; at the end everything the answer said
   * is announced once. `before` runs once the session is known (the visitor's own bubble), `opened` when
   * the server accepted the request. A 401 forgets the session; `retry` then starts a new one and sends again.
   */
  async function stream(run: (token: string, handlers: StreamHandlers) => Promise<Outcome<null>>, how: { before?: () => void; opened?: () => void; delivered?: () => void; fields?: (errors: Record<string, string>) => void; retry: boolean }): Promise<Outcome<null>> {
    busy = true;
    let release = hold();
    try {
      const token = await session();
      if (!token) return { ok: false, code: 'SESSION', status: 0, message: '' };
      how.before?.();
      let current: ReturnType<typeof bot> | null = null;
      let draft = '';
      let finished = false;
      let errored = false;
      const said: string[] = [];
      const bubble = () => {
        if (!current) {
          current = bot();
          draft = '';
        }
        return current;
      };
      const flush = () => {
        if (current && draft !== current.text) current.set(draft);
      };
      const seal = () => {
        flush();
        if (current?.text) said.push(markdownText(current.text));
        else current?.el.remove();
        current?.note('');
        current = null;
      };
      const outcome = await run(token, {
        open() {
          how.opened?.();
          // A person reads it: nobody is typing yet.
          if (!person()) bubble().note(TEXT.typing);
        },
        events(events) {
          for (const event of events) {
            // The answer's id: its copy from the live stream is not drawn again.
            if (event.type === 'start') {
              if (event.messageId) seen.set(event.messageId, null);
              release();
              release = () => {};
            }
            else if (event.type === 'text-delta' && typeof event.delta === 'string') {
              bubble().note('');
              draft += event.delta;
            } else if (event.type === 'tool-call') {
              flush();
              bubble().note(TEXT.lookingUp);
            } else if (event.type === 'lead-capture') {
              seal();
              add(card(event));
              said.push(`${name} asks for your contact details.`);
            } else if (event.type === 'error') {
              seal();
              errored = true;
              const message = typeof event.message === 'string' && event.message ? event.message : MESSAGES.server;
              fail(message, false);
              said.push(message);
            } else if (event.type === 'finish') {
              finished = true;
              if (event.status === 'delivered') how.delivered?.();
            }
          }
          flush();
        },
      });
      seal();
      if (outcome.ok) {
        if (!finished && !errored) {
          fail(MESSAGES.cutOff, false);
          said.push(MESSAGES.cutOff);
        }
        say(said.join(' '));
        return outcome;
      }
      if (outcome.status === 401) {
        // The session expired or is unknown: forgotten, and (for a message) a new one takes the same words.
        tokens.clear();
        welcome();
        if (!how.retry) {
          fail(TEXT.ended);
          return outcome;
        }
        fail(MESSAGES.expired);
        busy = false;
        return await stream(run, { ...how, retry: false });
      }
      if (outcome.fields && how.fields) how.fields(outcome.fields);
      else fail(outcome.message);
      return outcome;
    } finally {
      busy = false;
      release();
    }
  }

  // ── Sending ──
  async function submit(): Promise<void> {
    const content = input.value.trim();
    if (busy || !content || state === 'closed') return;
    input.value = '';
    send.setAttribute('aria-disabled', 'true');
    let bubble: HTMLElement | null = null;
    let accepted = false;
    const outcome = await stream((token, handlers) => api.send(token, content, handlers), {
      before: () => void (bubble = user(content)),
      opened: () => {
        accepted = true;
        pendingCards.forEach((decline) => decline());
      },
      // Stored for the person: marked as sent.
      delivered: () => (bubble as HTMLElement | null)?.append(sent),
      retry: true,
    });
    // Refused before it was taken (a limit, the network): the words go back to the box, to send again.
    if (!outcome.ok && !accepted) {
      (bubble as HTMLElement | null)?.remove();
      if (!input.value) input.value = content;
    }
    send.removeAttribute('aria-disabled');
  }
  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    void submit();
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void submit();
    }
  });

  // ── Hand-off ──
  /** Asks for a person: the server's words, then the status (`waiting`; `bot` when nobody is available, with the lead card it offers). */
  async function ask(retry = true): Promise<void> {
    if (busy) return;
    busy = true;
    talk.setAttribute('aria-disabled', 'true');
    const release = hold();
    try {
      const token = await session();
      if (!token) return;
      const answer = await api.handoff(token);
      if (answer.ok) {
        const { status: next, message } = answer.data;
        if (message && message !== streamed) bot().set((told = message));
        say(`${markdownText(message || '')} ${become(next, null)}`.trim());
        if (next === 'bot') void offers();
      } else if (answer.status === 401 && retry) {
        // The session ended: a new one asks.
        tokens.clear();
        welcome();
        busy = false;
        return await ask(false);
      } else fail(answer.message);
    } finally {
      busy = false;
      talk.removeAttribute('aria-disabled');
      release();
    }
  }
  talk.addEventListener('click', () => void ask());
  fresh.addEventListener('click', () => {
    tokens.clear();
    welcome();
  });

  // ── The lead card ──
  function card(lead: LeadCard): HTMLElement {
    cards.add(lead.toolCallId);
    const box = h('div', { class: 'sc-card', role: 'group', 'aria-labelledby': `${id}c${++fields}` }, h('p', { class: 'sc-ct', id: `${id}c${fields}` }, TEXT.cardTitle));
    const settle = (state: 'submitted' | 'declined') => {
      pendingCards.delete(declined);
      const refocus = box.contains(root.activeElement);
      box.replaceChildren(box.firstChild!, h('p', { class: 'sc-note' }, TEXT[state]));
      if (refocus) input.focus();
    };
    const declined = () => settle('declined');
    if (lead.status === 'submitted' || lead.status === 'declined') {
      settle(lead.status);
      return box;
    }
    pendingCards.add(declined);
    const form = h('form', { novalidate: '' });
    const controls = new Map<string, { input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; error: HTMLElement; required: boolean }>();
    const control = (key: string, el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, required: boolean) => {
      const error = h('p', { class: 'sc-err', id: `${el.id}e`, hidden: '' });
      controls.set(key, { input: el, error, required });
      return error;
    };
    for (const field of lead.fields) {
      const fid = `${id}f${++fields}`;
      const value = lead.values?.[field.name];
      const label = h('label', { for: fid }, field.label || field.name);
      if (field.required) label.append(h('span', { 'aria-hidden': 'true' }, ' *'));
      let el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
      if (field.type === 'checkbox') {
        el = h('input', { type: 'checkbox', id: fid });
        el.checked = value === true;
        form.append(h('div', { class: 'sc-f' }, h('div', { class: 'sc-c' }, el, label), control(field.name, el, field.required)));
        continue;
      }
      if (field.type === 'select') {
        el = h('select', { id: fid, class: 'sc-in' }, h('option', { value: '' }, 'Choose\u2026'));
        for (const option of field.options ?? []) el.append(h('option', { value: option }, option));
      } else if (field.type === 'textarea' || field.name === 'message') {
        el = h('textarea', { id: fid, class: 'sc-in', rows: '3' });
      } else {
        const type = ({ email: 'email', phone: 'tel', tel: 'tel', number: 'number', url: 'url', date: 'date' } as Record<string, string>)[field.type] ?? 'text';
        const auto = ({ name: 'name', email: 'email', phone: 'tel', company: 'organization' } as Record<string, string>)[field.name];
        el = h('input', { type, id: fid, class: 'sc-in', ...(auto ? { autocomplete: auto } : {}) });
      }
      if (typeof value === 'string' || typeof value === 'number') el.value = String(value);
      if (field.required) el.setAttribute('aria-required', 'true');
      form.append(h('div', { class: 'sc-f' }, label, el, control(field.name, el, field.required)));
    }
    const consentRequired = lead.consentRequired ?? Boolean(lead.consentText);
    let consent: HTMLInputElement | null = null;
    if (lead.consentText) {
      consent = h('input', { type: 'checkbox', id: `${id}f${++fields}` });
      const label = h('label', { for: consent.id }, lead.consentText);
      form.append(h('div', { class: 'sc-f' }, h('div', { class: 'sc-c' }, consent, label), control('consent', consent, consentRequired)));
    }
    const general = h('p', { class: 'sc-err', hidden: '' });
    const submitButton = h('button', { type: 'submit', class: 'sc-btn' }, 'Send my details');
    const decline = h('button', { type: 'button', class: 'sc-btn sc-btn2' }, 'No thanks');
    form.append(general, h('div', { class: 'sc-row' }, submitButton, decline));
    box.append(form);

    function mark(errors: Record<string, string>): void {
      let first: HTMLElement | null = null;
      general.hidden = true;
      for (const [key, { input: el, error }] of controls) {
        const message = errors[key];
        error.textContent = message ?? '';
        error.hidden = !message;
        if (message) {
          el.setAttribute('aria-invalid', 'true');
          el.setAttribute('aria-describedby', error.id);
          first ??= el;
        } else {
          el.removeAttribute('aria-invalid');
          el.removeAttribute('aria-describedby');
        }
      }
      const unknown = Object.keys(errors).filter((key) => !controls.has(key));
      if (unknown.length) {
        general.textContent = errors[unknown[0]!]!;
        general.hidden = false;
      }
      first?.focus();
    }

    async function decide(decision: LeadDecision): Promise<void> {
      if (busy) return;
      for (const button of [submitButton, decline]) button.setAttribute('aria-disabled', 'true');
      await stream((token, handlers) => api.lead(token, decision, handlers), {
        opened: () => settle(decision.action === 'submit' ? 'submitted' : 'declined'),
        // Refused: the card stays, its fields marked.
        fields: (errors) => {
          mark(errors);
          say(Object.values(errors).join(' '));
        },
        retry: false,
      });
      for (const button of [submitButton, decline]) button.removeAttribute('aria-disabled');
    }

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const values: Record<string, LeadValue> = {};
      const errors: Record<string, string> = {};
      for (const [key, { input: el, required }] of controls) {
        if (key === 'consent') continue;
        const value = el instanceof HTMLInputElement && el.type === 'checkbox' ? el.checked : el.value.trim();
        if (value === '' || value === false) {
          if (required) errors[key] = TEXT.required;
          if (value === '') continue;
        }
        values[key] = el instanceof HTMLInputElement && el.type === 'number' && value !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
      }
      if (consent && consentRequired && !consent.checked) errors.consent = TEXT.consent;
      mark(errors);
      if (Object.keys(errors).length) return;
      void decide({ toolCallId: lead.toolCallId, action: 'submit', values, consent: consent?.checked ?? false });
    });
    decline.addEventListener('click', () => void decide({ toolCallId: lead.toolCallId, action: 'decline' }));
    return box;
  }

  return { open };
}
