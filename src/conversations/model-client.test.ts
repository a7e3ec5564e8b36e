import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { freePort } from '../../test/support/net.js';
import { fixedResolver } from '../../test/support/tools-factories.js';
import { createModelClient } from './model-client.js';
import { providerFailure } from './provider-errors.js';

/**
 * The model client's connect-time address policy is the tool calls' own: without
 * MODEL_ALLOW_PRIVATE_ENDPOINTS, a provider on a loopback address or a name resolving to one is
 * refused before a socket exists; with it, the same server is reached.
 */
describe('the model client', () => {
  let model: ScriptedModel;
  beforeAll(async () => { model = await startScriptedModel(); });
  afterAll(async () => model.close());

  const ask = async (allowPrivate: boolean, baseUrl: string) => {
    const client = createModelClient({ allowPrivate, resolver: fixedResolver({ 'models.example.com': ['127.0.0.1'] }), timeoutMs: 5000 });
    try {
      return await generateText({ model: client.model({ id: 'mp_x', kind: 'openai', baseUrl, apiKey: 'sk-test' }, 'gpt-scripted'), prompt: 'Hi', maxRetries: 0 });
    } finally {
      await client.close();
    }
  };

  it.each([
    ['an IP literal', (port: string) => `http://127.0.0.1:${port}/v1`],
    ['a name resolving to loopback', (port: string) => `http://models.example.com:${port}/v1`],
  ])('refuses %s without MODEL_ALLOW_PRIVATE_ENDPOINTS, sending nothing', async (_what, url) => {
    model.script({ text: 'never sent' });
    const port = new URL(model.baseUrl).port;
    const error = await ask(false, url(port)).then(() => undefined, (e: unknown) => e);
    expect(error).toBeDefined();
    expect(providerFailure(error, 'sk-test')).toMatchObject({ code: 'MODEL_PROVIDER_ERROR', message: expect.stringContaining('127.0.0.1, an address that is not public') });
    expect(model.requests).toEqual([]);
  });

  it('reaches the same server with MODEL_ALLOW_PRIVATE_ENDPOINTS', async () => {
    model.script({ text: 'Hello from loopback.' });
    const port = new URL(model.baseUrl).port;
    const result = await ask(true, `http://models.example.com:${port}/v1`);
    expect(result.text).toBe('Hello from loopback.');
    expect(model.requests).toHaveLength(1);
  });

  it('says a provider that refuses the connection could not be reached, with the network code', async () => {
    const port = await freePort();
    const error = await ask(true, `http://127.0.0.1:${port}/v1`).then(() => undefined, (e: unknown) => e);
    expect(providerFailure(error, 'sk-test')).toEqual({ code: 'MODEL_PROVIDER_ERROR', message: 'The model provider could not be reached (ECONNREFUSED).' });
  });

  it('hands the SDK the provider\'s status, headers and body: a 429 keeps its Retry-After', async () => {
    model.script({ status: 429, error: 'Slow down.', headers: { 'retry-after': '7' } });
    const error = await ask(true, model.baseUrl).then(() => undefined, (e: unknown) => e);
    expect(providerFailure(error, 'sk-test')).toEqual({ code: 'MODEL_PROVIDER_RATE_LIMITED', message: 'The model provider answered 429 Too Many Requests: Slow down.', retryAfter: '7' });
  });
});

