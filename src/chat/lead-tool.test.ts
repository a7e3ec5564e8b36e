import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../conversations/schema.js';
import type { LiveForm } from '../forms/public-form.js';
import type { PublicFormConfig } from '../forms/schema.js';
import { NOTE_MAX_CHARS, transcriptNote } from './lead-note.js';
import { captureLeadTool, leadCard, leadSubmission, leadValues } from './lead-tool.js';

/** The lead form as the model, the card and the submit path see it: pure functions, no database. */

const config: PublicFormConfig = {
  slug: 'book-a-visit', title: 'Book a visit',
  fields: {
    name: { enabled: true, required: true }, email: { enabled: true, required: false }, phone: { enabled: false, required: false },
    company: { enabled: false, required: false }, message: { enabled: true, required: false },
  },
  customFields: [
    { key: 'service', entity: 'contact', required: true, label: 'Service', type: 'select', options: ['Cleaning', 'Whitening'] },
    { key: 'seats', entity: 'opportunity', required: false, label: 'Seats', type: 'number', options: [] },
    { key: 'newsletter', entity: 'contact', required: false, label: 'Newsletter', type: 'checkbox', options: [] },
  ],
  consentText: 'I agree to be contacted.', consentVersion: 'cv_1', successMessage: 'Thanks!', redirectUrl: null, branding: null,
};
const form = { slug: config.slug, title: config.title, consentVersion: 'cv_1', configBody: JSON.stringify({ success: true, data: config }) } as LiveForm;

describe('capture_lead', () => {
  it('offers the form\'s enabled fields as parameters, with their kinds, choices and required ones, and never consent', () => {
    const tool = captureLeadTool(form);
    expect(tool.name).toBe('capture_lead');
    expect(tool.description).toContain('"Book a visit"');
    expect(tool.description).toContain('never guess or invent a value');
    expect(tool.description).toContain('include their email');
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 200, description: 'Name' },
        email: { type: 'string', format: 'email', maxLength: 254, description: 'Email' },
        message: { type: 'string', maxLength: 5000, description: 'Message' },
        'custom.service': { type: 'string', enum: ['Cleaning', 'Whitening'], description: 'Service' },
        'custom.seats': { type: 'number', description: 'Seats' },
        'custom.newsletter': { type: 'boolean', description: 'Newsletter' },
      },
      required: ['name', 'custom.service'],
      additionalProperties: false,
    });
  });

  it('draws the card from the same fields, consent required', () => {
    expect(leadCard(form)).toEqual({
      fields: [
        { name: 'name', label: 'Name', type: 'text', required: true },
        { name: 'email', label: 'Email', type: 'email', required: false },
        { name: 'message', label: 'Message', type: 'textarea', required: false },
        { name: 'custom.service', label: 'Service', type: 'select', required: true, options: ['Cleaning', 'Whitening'] },
        { name: 'custom.seats', label: 'Seats', type: 'number', required: false },
        { name: 'custom.newsletter', label: 'Newsletter', type: 'checkbox', required: false },
      ],
      consentText: 'I agree to be contacted.',
      consentRequired: true,
    });
  });

  it('keeps only the form\'s fields, each of a kind it can hold, text cut to the field\'s length', () => {
    expect(leadValues(form, {
      name: 'x'.repeat(250), email: 42, phone: '+358401234567', consent: true, 'custom.seats': 3, 'custom.newsletter': 'yes',
      'custom.service': 'Cleaning', message: { text: 'hi' },
    })).toEqual({ name: 'x'.repeat(200), email: '42', 'custom.seats': 3, 'custom.service': 'Cleaning' });
    for (const raw of [null, 'text', [1], 7]) expect(leadValues(form, raw)).toEqual({});
  });

  it('builds the form\'s submission body: the consent version only when ticked, custom values typed, UTM as metadata', () => {
    const values = { name: 'Ada', email: 'ada@example.com', 'custom.seats': 3, 'custom.newsletter': true, 'custom.service': 'Cleaning' };
    expect(leadSubmission(form, values, true, { utm_source: 'news' })).toEqual({
      consentVersion: 'cv_1', name: 'Ada', email: 'ada@example.com',
      custom: { seats: 3, newsletter: true, service: 'Cleaning' }, metadata: { utm_source: 'news' },
    });
    expect(leadSubmission(form, { ...values, 'custom.newsletter': false }, false, {})).toEqual({ name: 'Ada', email: 'ada@example.com', custom: { seats: 3, service: 'Cleaning' } });
  });
});

describe('the transcript note', () => {
  const message = (role: string, content: string | null, status = 'complete') => ({ role, content, status }) as ConversationMessage;

  it('says where the chat happened, the form\'s message, then what the visitor saw: no tool calls, no failed answers', () => {
    const note = transcriptNote([
      message('user', 'Hi'), message('assistant', ''), message('tool', null), message('assistant', 'Provider said 500', 'error'),
      message('assistant', 'Hello! '), message('user', 'Call me'),
    ], { pageUrl: 'https://shop.example/', message: 'Mornings are best.' });
    expect(note).toBe('Lead from the chat widget on https://shop.example/.\n\nMornings are best.\n\nConversation:\n\nVisitor: Hi\n\nAssistant: Hello!\n\nVisitor: Call me');
  });

  it('keeps the latest messages within a note\'s 10,000 characters', () => {
    const long = Array.from({ length: 40 }, (_, i) => message(i % 2 ? 'assistant' : 'user', `${i} ${'w'.repeat(500)}`));
    const note = transcriptNote(long, { pageUrl: null });
    expect([...note].length).toBeLessThanOrEqual(NOTE_MAX_CHARS);
    expect(note.startsWith('Lead from the chat widget.\n\nConversation:\n\n(')).toBe(true);
    expect(note).toMatch(/\(\d+ earlier messages left out\)/);
    expect(note.endsWith(`Assistant: 39 ${'w'.repeat(500)}`)).toBe(true);
  });
});
