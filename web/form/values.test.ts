import { describe, expect, it } from 'vitest';
import type { PublicFormConfig } from './types.js';
import { buildBody, CONSENT, controlsToMark } from './values.js';

const config: PublicFormConfig = {
  slug: 'book-a-visit',
  title: 'Book a visit',
  fields: {
    name: { enabled: true, required: true },
    email: { enabled: true, required: false },
    phone: { enabled: true, required: false },
    company: { enabled: false, required: false },
    message: { enabled: true, required: false },
  },
  customFields: [
    { key: 'plan', entity: 'contact', required: true, label: 'Plan', type: 'select', options: ['Basic', 'Pro'] },
    { key: 'seats', entity: 'opportunity', required: false, label: 'Seats', type: 'number', options: [] },
    { key: 'newsletter', entity: 'contact', required: false, label: 'Newsletter', type: 'checkbox', options: [] },
    { key: 'site', entity: 'contact', required: false, label: 'Website', type: 'url', options: [] },
  ],
  consentText: 'I agree.',
  consentVersion: '3',
  successMessage: 'Thanks!',
  redirectUrl: null,
  branding: null,
};

describe('the submission body', () => {
  it('carries the consent version shown, the values, custom values by key, the utm metadata and _hp', () => {
    const body = buildBody(
      config,
      { name: 'Ada', email: 'ada@example.com', phone: '', message: 'Hi', 'custom.plan': 'Pro', 'custom.seats': '12', 'custom.newsletter': true, consent: true },
      { utm_source: 'newsletter' },
      '',
    );
    expect(body).toEqual({
      consentVersion: '3',
      _hp: '',
      name: 'Ada',
      email: 'ada@example.com',
      message: 'Hi',
      custom: { plan: 'Pro', seats: 12, newsletter: true },
      metadata: { utm_source: 'newsletter' },
    });
  });

  it('leaves out blank fields, disabled fields, unticked boxes and an empty metadata', () => {
    const body = buildBody(config, { name: '  ', email: 'a@b.example', company: 'Acme', 'custom.newsletter': false, 'custom.site': ' ' }, {}, '');
    expect(body).toEqual({ consentVersion: '3', _hp: '', email: 'a@b.example' });
  });

  it('sends a number that does not read as one as typed, so the API names the field', () => {
    expect(buildBody(config, { email: 'a@b.example', 'custom.seats': '12 seats' }, {}, '').custom).toEqual({ seats: '12 seats' });
  });

  it('sends what a bot put in the honeypot', () => {
    expect(buildBody(config, { email: 'a@b.example' }, {}, 'http://spam.example')._hp).toBe('http://spam.example');
  });
});

describe('which fields a refusal marks', () => {
  const shown = new Set(['name', 'email', 'phone', 'message', 'custom.plan', 'custom.seats', CONSENT]);
  const has = (key: string) => shown.has(key);

  it('FIELD_REQUIRED and INVALID_FIELD mark the field they name, built-in or custom.<key>', () => {
    expect(controlsToMark({ code: 'FIELD_REQUIRED', field: 'name' }, has)).toEqual(['name']);
    expect(controlsToMark({ code: 'INVALID_FIELD', field: 'email' }, has)).toEqual(['email']);
    expect(controlsToMark({ code: 'FIELD_REQUIRED', field: 'custom.plan' }, has)).toEqual(['custom.plan']);
    expect(controlsToMark({ code: 'INVALID_FIELD', field: 'custom.seats' }, has)).toEqual(['custom.seats']);
  });

  it('IDENTITY_REQUIRED marks email and phone, whichever the form shows', () => {
    expect(controlsToMark({ code: 'IDENTITY_REQUIRED' }, has)).toEqual(['email', 'phone']);
    expect(controlsToMark({ code: 'IDENTITY_REQUIRED' }, (key) => key === 'email')).toEqual(['email']);
  });

  it('CONSENT_REQUIRED (field consentVersion) marks the consent box', () => {
    expect(controlsToMark({ code: 'CONSENT_REQUIRED', field: 'consentVersion' }, has)).toEqual([CONSENT]);
    expect(controlsToMark({ code: 'CONSENT_REQUIRED' }, has)).toEqual([CONSENT]);
  });

  it('marks nothing for a field the form does not show, or for other codes', () => {
    expect(controlsToMark({ code: 'INVALID_FIELD', field: 'metadata.utm_source' }, has)).toEqual([]);
    expect(controlsToMark({ code: 'INVALID_FIELD', field: 'custom.gone' }, has)).toEqual([]);
    expect(controlsToMark({ code: 'INVALID_FIELD', field: 'company' }, has)).toEqual([]);
    expect(controlsToMark({ code: 'FIELD_REQUIRED' }, has)).toEqual([]);
    expect(controlsToMark({ code: 'RATE_LIMIT_EXCEEDED' }, has)).toEqual([]);
    expect(controlsToMark({ code: 'PIPELINE_NOT_FOUND', field: 'name' }, has)).toEqual([]);
  });
});
