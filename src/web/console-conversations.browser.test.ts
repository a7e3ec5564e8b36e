import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createBrowserHarness, h1, nav, poll, settled, signUp } from '../../test/support/browser.js';
import { createServingTestContext, testDialects, type TestContext } from '../../test/support/context.js';
import { developerSession } from '../../test/support/factories.js';
import { json, startHttpsEndpoint, type HttpsEndpoint } from '../../test/support/https-endpoint.js';
import { toolEndpointOptions } from '../../test/support/invocation-factories.js';
import { startScriptedModel, type ScriptedModel } from '../../test/support/scripted-model.js';
import { createTool, publishTool } from '../../test/support/tools-factories.js';

/**
 * The agent page's Playground and the Conversations pages in Chromium, on every database the run has: an
 * operator adds a model provider (a scripted Chat Completions server on 127.0.0.1, the app with
 * MODEL_ALLOW_PRIVATE_ENDPOINTS=1), gives the agent its model, enables a catalog tool whose endpoint is a real
 * HTTPS server on loopback, and talks to the agent: the answer streams in, the tool call shows inline with its
 * arguments and result, and the transcript shows it all again. Stop ends an answer half-written; a provider's
 * refusal is said kindly. axe-core on every page under the console's CSP; nothing leaves loopback.
 */
const FLOW_TIMEOUT = 240_000;
const OWNER = { name: 'Olive Owner', email: 'olive@brightsmile.example', password: 'amber lantern harbour', org: 'Bright Smile Dental' };
const KEY = 'sk-scripted-playground-3f2e1d';
const QUOTE = { price: 12.5, currency: 'EUR', carrier: 'Posti' };
const ANSWER = 'A 2 kg parcel to Finland costs 12.50 EUR with Posti.';

describe.each(testDialects())('the console’s Playground and conversations in Chromium (%s)', (dialect) => {
  let t: TestContext;
  let endpoint: HttpsEndpoint;
  let model: ScriptedModel;
  let app: string;
  const harness = createBrowserHarness({ artifacts: `console-conversations-${dialect}` });
  const { newContext, newPage, visited, checked, pageErrors, blocked } = harness;
  let context: BrowserContext;
  let owner: Page;
  let toolName = '';
  let agentId = '';
  let firstConversation = '';

  beforeAll(async () => {
    endpoint = await startHttpsEndpoint(json(200, QUOTE));
    model = await startScriptedModel();
    const served = await createServingTestContext(dialect, toolEndpointOptions(endpoint, { MODEL_ALLOW_PRIVATE_ENDPOINTS: '1' }));
    t = served;
    app = served.url;
    t.clock.now = () => new Date();
    // A developer publishes a shipping-quote tool (weightKg, country) whose endpoint is the loopback server.
    const dev = await developerSession(t.database, t.clock, t.app);
    const tool = await createTool(t.app, dev.auth, { endpoint: `https://tool.test:${endpoint.port}/quote` });
    await publishTool(t.app, dev.auth, tool.id);
    toolName = tool.name;
    await harness.start(app);
    context = await newContext();
    owner = await newPage(context);
  }, 120_000);

  afterAll(async () => {
    await harness.close();
    await t?.close();
    await endpoint?.close();
    await model?.close();
  });

  const playground = () => owner.getByRole('region', { name: 'Playground' });
  const chat = () => playground().getByRole('list', { name: 'Playground conversation' });
  const message = () => playground().getByLabel('Message', { exact: true });
  const announced = (text: string | RegExp) => playground().getByRole('status').filter({ hasText: text });
  /** The agent page's Model and playground sub-page. */
  const agentPage = async () => {
    await owner.goto(`${app}/app/agents/${agentId}/model`);
    await settled(owner);
  };
  const messageRows = () => t.database.db.selectFrom('conversation_messages').select(['conversation_id', 'role', 'content', 'status']).orderBy('conversation_id').orderBy('seq').execute();

  it('an operator gives the agent a model and a tool, talks to it, sees the answer stream and the tool call inline, then reads the transcript', async () => {
    await signUp(owner, app, OWNER);
    agentId = await createAgent(owner, 'Front desk');
    // Without a model, the Playground says what to do first.
    await agentPage();
    await playground().getByText('Choose a model above first').waitFor();

    // A provider: the scripted server, a Chat Completions server on loopback.
    await owner.goto(`${app}/app/settings/model-providers`);
    await settled(owner);
    await owner.getByRole('button', { name: 'Add a provider' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Add a model provider' });
    await dialog.getByLabel('Name').fill('Local model');
    await dialog.getByLabel('Kind').selectOption('openai-compatible');
    await dialog.getByLabel('Base URL').fill(model.baseUrl);
    await dialog.getByLabel(/^API key/).fill(KEY);
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The tool, for all agents.
    await owner.goto(`${app}/app/tools/catalog`);
    await settled(owner);
    await owner.getByRole('article', { name: toolName }).getByRole('button', { name: `Enable ${toolName}` }).click();
    await owner.getByRole('dialog', { name: `Enable “${toolName}”` }).getByRole('button', { name: 'Enable tool' }).click();
    await owner.waitForURL(/\/app\/tools\/inst_/);

    // The agent's model; the Playground opens as soon as it is saved.
    await agentPage();
    const modelSection = owner.getByRole('region', { name: 'Model' });
    await modelSection.getByLabel('Model (required)', { exact: true }).fill('gpt-scripted');
    await modelSection.getByRole('button', { name: 'Save model' }).click();
    await modelSection.getByText('Now: gpt-scripted on Local model').waitFor();
    await playground().getByText('No messages yet.').waitFor();
    await visited(owner, 'playground (empty)');

    // The model asks for the tool, then answers with its result.
    model.script(
      { toolCalls: [{ id: 'call_fi', name: toolName, arguments: '{"weightKg":2,"country":"FI"}' }], usage: { input: 40, output: 12 } },
      { text: ANSWER, usage: { input: 90, output: 9 } },
    );
    // Shift+Enter is a new line, not a send.
    await message().click();
    await owner.keyboard.type('What does a 2 kg parcel');
    await owner.keyboard.press('Shift+Enter');
    await owner.keyboard.type('to Finland cost?');
    expect(await message().inputValue()).toBe('What does a 2 kg parcel\nto Finland cost?');
    expect(model.requests).toHaveLength(0);
    await owner.keyboard.press('Enter');

    const answer = chat().getByRole('listitem').filter({ hasText: ANSWER });
    await answer.waitFor();
    await answer.getByText('Tokens: 90 in · 9 out').waitFor();
    await chat().getByRole('listitem').filter({ hasText: 'to Finland cost?' }).getByText('You').waitFor();
    // The tool call, inline: name, outcome, duration, arguments, the endpoint's result, and the call log.
    const toolCall = chat().getByRole('listitem').filter({ hasText: 'Tool call' });
    await toolCall.getByText(toolName, { exact: true }).waitFor();
    await toolCall.getByText('Succeeded').waitFor();
    await toolCall.getByText(/· \d[\d,]* ms/).waitFor();
    expect(JSON.parse((await toolCall.locator('dd pre').nth(0).textContent())!)).toEqual({ weightKg: 2, country: 'FI' });
    expect(JSON.parse((await toolCall.locator('dd pre').nth(1).textContent())!)).toEqual(QUOTE);
    const logLink = toolCall.getByRole('link', { name: 'In the call log' });
    const href = new URL((await logLink.getAttribute('href'))!, app);
    expect(href.pathname).toBe('/app/tool-calls');
    expect(href.searchParams.get('conversationId')).toMatch(/^conv_/);
    // The finished answer is announced once, whole (not token by token).
    await announced(`The agent answered: ${ANSWER}`).waitFor();
    await playground().getByText('Tokens so far: 130 in · 21 out').waitFor();
    expect(await message().inputValue()).toBe('');

    // What went over the wire: a streamed request with the tool, and the call at the endpoint.
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.json).toMatchObject({ stream: true, model: 'gpt-scripted' });
    expect(model.requests[0]!.json.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([toolName]);
    expect(endpoint.requests).toHaveLength(1);
    expect(JSON.parse(endpoint.requests[0]!.body.toString('utf8'))).toMatchObject({ weightKg: 2, country: 'FI' });
    await visited(owner, 'playground (answered)', 'playground');

    // The call log link lands on that conversation's calls: this one, and a way back to its transcript.
    await logLink.click();
    await owner.waitForURL(/\/app\/tool-calls\?/);
    const logRows = owner.getByRole('region', { name: 'Tool calls' }).getByRole('row');
    await logRows.filter({ hasText: 'Conversation' }).getByText('Succeeded').waitFor();
    expect(await logRows.count()).toBe(2);
    expect(await owner.getByRole('link', { name: 'Open its transcript' }).getAttribute('href')).toBe(`/app/conversations/${href.searchParams.get('conversationId')}`);
    await owner.goBack();
    await settled(owner);

    // Back on the agent page, the Playground resumes its conversation; the transcript shows every message in order, with the totals.
    await agentPage();
    await chat().getByText(ANSWER).waitFor();
    await chat().getByText(toolName, { exact: true }).waitFor();
    model.script({ text: 'Anything else?', usage: { input: 5, output: 2 } });
    await message().fill('Thanks');
    await playground().getByRole('button', { name: 'Send' }).click();
    await chat().getByText('Anything else?').waitFor();
    await playground().getByRole('link', { name: 'Open the transcript' }).click();
    await owner.waitForURL(/\/app\/conversations\/conv_/);
    firstConversation = new URL(owner.url()).pathname.split('/').pop()!;
    await poll(() => h1(owner).textContent()).toBe('Conversation with Front desk');
    const transcript = owner.getByRole('list', { name: 'Transcript' });
    await poll(() => transcript.getByRole('listitem').count()).toBe(6);
    const items = await transcript.getByRole('listitem').allTextContents();
    expect(items[0]).toContain('User');
    expect(items[0]).toContain('What does a 2 kg parcel\nto Finland cost?');
    expect(items[1]).toContain('Asked for the tool calls below.');
    expect(items[1]).toContain('Tokens: 40 in · 12 out');
    expect(items[2]).toContain(toolName);
    expect(items[2]).toContain('Succeeded');
    expect(items[2]).toContain('"currency": "EUR"');
    expect(items[3]).toContain(ANSWER);
    expect(items[4]).toContain('Thanks');
    expect(items[5]).toContain('Anything else?');
    await owner.getByText('135 in · 23 out').waitFor();
    await owner.getByText('6 messages').waitFor();
    await visited(owner, 'transcript', 'transcript');

    // The list: newest first, filtered by agent, each opening its transcript.
    await nav(owner, 'Conversations');
    await owner.waitForURL(`${app}/app/conversations`);
    const row = owner.getByRole('region', { name: 'Conversations' }).getByRole('row').filter({ hasText: 'Front desk' });
    await row.getByRole('cell', { name: 'Console' }).waitFor();
    await row.getByRole('cell', { name: '6', exact: true }).waitFor();
    await visited(owner, 'conversations', 'conversations');
    const search = owner.getByRole('search', { name: 'Conversations' });
    await search.getByLabel('Agent').selectOption({ label: 'Front desk' });
    await search.getByRole('button', { name: 'Show conversations' }).click();
    await owner.waitForURL(new RegExp(`agentId=${agentId}`));
    await row.getByRole('link').click();
    await owner.waitForURL(`${app}/app/conversations/${firstConversation}`);
    await poll(() => h1(owner).textContent()).toBe('Conversation with Front desk');
  }, FLOW_TIMEOUT);

  it('Stop ends an answer half-written, which is saved as stopped; one answer at a time', async () => {
    await agentPage();
    // Start over: the chat empties, and the next message begins another conversation.
    await chat().getByText(ANSWER).waitFor();
    await playground().getByRole('button', { name: 'Start over' }).click();
    await playground().getByText('No messages yet.').waitFor();
    expect(await playground().getByRole('link', { name: 'Open the transcript' }).count()).toBe(0);
    await announced('A new conversation starts with your next message.').waitFor();
    model.script({ text: 'Let me look that up for you', hold: true });
    await message().fill('Is Sweden cheaper?');
    await message().press('Enter');
    // The text arrives while the answer is still open: it streams.
    await chat().getByText('Let me look that up for you').waitFor();
    await chat().getByText('Writing…').waitFor();
    const send = playground().getByRole('button', { name: 'Answering…' });
    expect(await send.getAttribute('aria-disabled')).toBe('true');
    await message().fill('And Norway?');
    await message().press('Enter');
    expect(model.requests.at(-1)!.json.messages.at(-1).content).toBe('Is Sweden cheaper?');
    expect(await message().inputValue()).toBe('And Norway?');
    await visited(owner, 'playground (answering)');

    await playground().getByRole('button', { name: 'Stop' }).click();
    const stopped = chat().getByRole('listitem').filter({ hasText: 'Let me look that up for you' });
    await stopped.getByText('Stopped').waitFor();
    await announced('Stopped. What the agent had written so far is saved.').waitFor();
    await poll(() => model.abandoned).toBeGreaterThanOrEqual(1);
    // Saved as cancelled, in a conversation of its own.
    await poll(async () => (await messageRows()).filter((m) => m.role === 'assistant' && m.status === 'cancelled').map((m) => m.content)).toEqual(['Let me look that up for you']);
    const cancelled = (await messageRows()).find((m) => m.status === 'cancelled')!;
    expect(cancelled.conversation_id).not.toBe(firstConversation);
    await playground().getByRole('button', { name: 'Send' }).waitFor();

    await owner.goto(`${app}/app/conversations/${cancelled.conversation_id}`);
    await settled(owner);
    await owner.getByRole('list', { name: 'Transcript' }).getByRole('listitem').filter({ hasText: 'Let me look that up for you' }).getByText('Stopped').waitFor();
    await visited(owner, 'transcript (stopped)');
  }, FLOW_TIMEOUT);

  it('a provider’s refusal is said kindly, in its own words, and saved', async () => {
    await agentPage();
    model.script({ status: 401, error: 'Incorrect API key provided.' });
    await message().fill('Hello?');
    await message().press('Enter');
    const failed = chat().getByRole('listitem').filter({ hasText: 'Failed' });
    await failed.getByText('The model provider could not answer. Check the provider’s key and base URL, and the model’s id.').waitFor();
    await failed.getByText(/The provider said: “.*Incorrect API key provided\..*”/).waitFor();
    await announced(/^No answer: The model provider could not answer/).waitFor();
    // The message was sent, so the box is empty and Send works again.
    expect(await message().inputValue()).toBe('');
    await playground().getByRole('button', { name: 'Send' }).waitFor();
    await visited(owner, 'playground (provider error)');
    await poll(async () => (await messageRows()).filter((m) => m.status === 'error').length).toBe(1);
    for (const request of model.requests) expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    await context.close();
    expect(pageErrors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('checked every page with axe-core and sent nothing off the machine', () => {
    expect(checked.length).toBeGreaterThanOrEqual(7);
    expect(blocked, 'requests aborted for leaving loopback').toEqual([]);
  });
});
