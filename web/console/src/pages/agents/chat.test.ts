import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { splitErrors } from '../../lib/errors';
import { CHAT_FIELDS, MAX_ORIGINS, NO_SITES, chatProblems, chatSnippet, fromChat, normalOrigin, originProblem, placeChatError, toChatBody } from './chat';

describe('the allowed sites, checked as typed with the server’s rules', () => {
  it('takes a scheme and host, with a port and one leading *. label, as the browser’s Origin writes it', () => {
    for (const [typed, stored] of [
      ['https://www.example.com', 'https://www.example.com'],
      ['  HTTPS://Shop.Example.com/  ', 'https://shop.example.com'],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['https://*.example.co.uk', 'https://*.example.co.uk'],
      ['https://example.com:443', 'https://example.com'],
      ['http://[::1]:3000', 'http://[::1]:3000'],
    ]) {
      expect(originProblem(typed!, []), typed).toBeNull();
      expect(normalOrigin(typed!), typed).toBe(stored);
    }
  });

  it('refuses a path, another scheme, a misplaced or bare wildcard, credentials and what is no address, each in words', () => {
    expect(originProblem('www.example.com', [])).toBe('Start with https:// (or http://), like https://www.example.com.');
    expect(originProblem('https://example.com/contact', [])).toBe('Only the site: scheme, host and port, without a path, like https://www.example.com.');
    expect(originProblem('https://example.com?utm_source=x', [])).toMatch(/without a path/);
    expect(originProblem('ftp://example.com', [])).toBe('Use an address starting with https:// or http://.');
    expect(originProblem('https://shop.*.example.com', [])).toBe('Use * only as the first label, like https://*.example.com.');
    expect(originProblem('https://*.*.example.com', [])).toBe('Use * only as the first label, like https://*.example.com.');
    expect(originProblem('https://*.com', [])).toBe('After *. comes a domain with a dot, like https://*.example.com.');
    expect(originProblem('https://*.10.0.0.1', [])).toBe('After *. comes a domain with a dot, like https://*.example.com.');
    expect(originProblem('https://user:pw@example.com', [])).toBe('Leave out the user name and password.');
    expect(originProblem('https://exa mple.com', [])).toBe('That is not a valid host name or port.');
    expect(originProblem('https://example.com:99999', [])).toBe('That is not a valid host name or port.');
    expect(originProblem('', [])).toBe('Enter a site’s address, like https://www.example.com.');
  });

  it('refuses a site already listed (as stored) and a 21st one', () => {
    expect(originProblem('HTTPS://Example.com/', ['https://example.com'])).toBe('https://example.com is on the list already.');
    const full = Array.from({ length: MAX_ORIGINS }, (_, i) => `https://site${i}.example`);
    expect(originProblem('https://one-more.example', full)).toBe(`At most ${MAX_ORIGINS} sites: remove one first.`);
    expect(originProblem('https://one-more.example', full.slice(1))).toBeNull();
  });
});

describe('the section’s draft and body', () => {
  const chat = { enabled: false, chatId: 'chat_abc', allowedOrigins: ['https://a.example'], welcomeMessage: 'Hi!', leadFormId: null, dailyTokenBudget: null };

  it('sends every setting, no lead form and no budget as null, the message trimmed', () => {
    const draft = { ...fromChat(chat), enabled: true, welcomeMessage: '  Hello there \n' };
    expect(toChatBody(draft)).toEqual({ enabled: true, allowedOrigins: ['https://a.example'], welcomeMessage: 'Hello there', leadFormId: null, dailyTokenBudget: null });
    expect(toChatBody({ ...draft, leadFormId: 'frm_1', dailyTokenBudget: ' 20000 ' })).toMatchObject({ leadFormId: 'frm_1', dailyTokenBudget: 20000 });
  });

  it('will not turn the widget on for no site, nor take a budget that is no whole number in range', () => {
    const draft = fromChat(chat);
    expect(chatProblems({ ...draft, enabled: true, allowedOrigins: [] })['chat.allowedOrigins']).toBe(NO_SITES);
    expect(chatProblems({ ...draft, enabled: false, allowedOrigins: [] })['chat.allowedOrigins']).toBeNull();
    for (const budget of ['0', '1.5', '-3', 'lots', '1000000001']) expect(chatProblems({ ...draft, dailyTokenBudget: budget })['chat.dailyTokenBudget'], budget).toMatch(/whole number/);
    expect(chatProblems({ ...draft, dailyTokenBudget: '1000000000' })['chat.dailyTokenBudget']).toBeNull();
    expect(chatProblems({ ...draft, welcomeMessage: 'x'.repeat(501) })['chat.welcomeMessage']).toMatch(/under 500/);
  });

  it('writes the snippet with this server’s origin and the public chat id only', () => {
    expect(chatSnippet('https://switchboard.example', 'chat_abc')).toBe('<script async src="https://switchboard.example/chat-embed.js" data-svc-chat="chat_abc"></script>');
  });
});

describe('a refusal about one origin', () => {
  it('lands on the sites’ input, whether the API names the field or lists validation details', () => {
    const byField = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'https://x.example/a has a path.', field: 'chat.allowedOrigins.2' });
    expect(splitErrors(placeChatError(byField), CHAT_FIELDS).fields).toEqual({ 'chat.allowedOrigins': 'https://x.example/a has a path.' });
    const byDetail = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Invalid body.', details: [{ path: '/chat/allowedOrigins/0', message: 'must match pattern' }] });
    expect(splitErrors(placeChatError(byDetail), CHAT_FIELDS).fields).toEqual({ 'chat.allowedOrigins': 'must match pattern' });
    const welcome = new ApiError({ status: 400, code: 'VALIDATION_ERROR', message: 'Too long.', field: 'chat.welcomeMessage' });
    expect(splitErrors(placeChatError(welcome), CHAT_FIELDS).fields).toEqual({ 'chat.welcomeMessage': 'Too long.' });
  });
});
