import { describe, expect, it } from 'vitest';
import type { Agent, CustomField, Form } from '../../api/types';
import { changes, checkDraft, draftFromForm, moveItem, newDraft, previewConfig, setField, slugify, toInput } from './formBody';

const form: Form = {
  id: 'frm_1',
  slug: 'book-a-visit',
  title: 'Book a visit',
  active: true,
  fields: {
    name: { enabled: true, required: true },
    email: { enabled: true, required: false },
    phone: { enabled: true, required: false },
    company: { enabled: false, required: false },
    message: { enabled: true, required: false },
  },
  customFields: [
    { id: 'cf_1', key: 'insurer', required: true, archived: false },
    { id: 'cf_2', key: 'old', required: false, archived: true },
  ],
  consentText: 'I agree.',
  consentVersion: '2',
  successMessage: 'Thanks!',
  redirectUrl: null,
  agentId: 'agt_1',
  createOpportunity: true,
  pipelineId: 'pipe_1',
  stageId: 'stg_2',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const definition = (key: string, extra: Partial<CustomField> = {}): CustomField => ({
  id: `cf_${key}`,
  key,
  entity: 'contact',
  label: key.toUpperCase(),
  type: 'select',
  options: ['A', 'B'],
  archived: false,
  archivedAt: null,
  createdAt: '',
  updatedAt: '',
  ...extra,
});

describe('form body editing', () => {
  it('keeps required fields shown and hidden fields optional', () => {
    const fields = newDraft().fields;
    expect(setField(fields, 'company', { required: true }).company).toEqual({ enabled: true, required: true });
    expect(setField(fields, 'email', { enabled: false }).email).toEqual({ enabled: false, required: false });
    expect(setField(fields, 'name', { required: false }).name).toEqual({ enabled: true, required: false });
  });

  it('makes slugs from titles', () => {
    expect(slugify('Book a Visit!')).toBe('book-a-visit');
    expect(slugify('Café crème')).toBe('cafe-creme');
    expect(slugify('Hi')).toBe('hi-form');
    expect(slugify('!!!')).toBe('');
    expect(slugify('x'.repeat(80)).length).toBe(64);
  });

  it('moves items and ignores moves off the ends', () => {
    expect(moveItem(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveItem(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveItem(['a', 'b'], 0, -1)).toEqual(['a', 'b']);
  });

  it('sends only what changed, custom fields by key, an empty redirect as null', () => {
    const draft = draftFromForm(form);
    const saved = toInput(draft);
    expect(saved.customFields).toEqual([
      { key: 'insurer', required: true },
      { key: 'old', required: false },
    ]);
    expect(changes(saved, saved)).toEqual({});
    const edited = toInput({ ...draft, consentText: 'I agree, again.', redirectUrl: '  ', title: ' New title ' });
    expect(changes(saved, edited)).toEqual({ consentText: 'I agree, again.', title: 'New title' });
    expect(toInput({ ...draft, redirectUrl: ' https://example.com/thanks ' }).redirectUrl).toBe('https://example.com/thanks');
    expect(toInput({ ...draft, pipelineId: null, stageId: 'stg_2' }).stageId).toBeNull();
  });

  it('checks a draft the way the API will', () => {
    const ok = checkDraft(draftFromForm(form));
    expect(Object.values(ok).filter(Boolean)).toEqual([]);
    const bad = checkDraft({
      ...newDraft(),
      slug: 'No Spaces',
      fields: { ...newDraft().fields, email: { enabled: false, required: false }, phone: { enabled: false, required: false } },
      redirectUrl: 'javascript:alert(1)',
      successMessage: ' ',
    });
    expect(bad.title).toMatch(/title/);
    expect(bad.slug).toMatch(/lowercase/);
    expect(bad.fields).toMatch(/email or the phone/);
    expect(bad.consentText).toMatch(/consent/);
    expect(bad.redirectUrl).toMatch(/https:\/\//);
    expect(bad.successMessage).toBeTruthy();
  });

  it('previews the public config: definitions resolved, archived ones left out, the agent’s brand', () => {
    const agent: Agent = {
      id: 'agt_1',
      name: 'Front desk',
      branding: { name: 'Bright Smile', primaryColor: '#123456', backgroundColor: '#ffffff', textColor: '#111111', fontFamily: null, logoUrl: 'https://x.example/l.png' },
      model: null,
      chat: { enabled: false, chatId: 'chat_1', allowedOrigins: [], welcomeMessage: '', leadFormId: null, dailyTokenBudget: null },
      handoff: { enabled: false, waitSeconds: 300, officeHours: null },
      createdAt: '',
      updatedAt: '',
    };
    const config = previewConfig(draftFromForm(form), [definition('insurer'), definition('old', { archived: true })], [agent]);
    expect(config.customFields).toEqual([{ key: 'insurer', entity: 'contact', required: true, label: 'INSURER', type: 'select', options: ['A', 'B'] }]);
    expect(config.branding?.name).toBe('Bright Smile');
    // The preview shows the brand's logo (the console's CSP loads https images).
    expect(config.branding?.logoUrl).toBe('https://x.example/l.png');
    expect(config.redirectUrl).toBeNull();
    expect(config).not.toHaveProperty('id');
    const blank = previewConfig(newDraft(), [], []);
    expect(blank.title).toBe('Untitled form');
    expect(blank.branding).toBeNull();
  });
});
