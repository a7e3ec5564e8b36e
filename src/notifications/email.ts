import { escapeHtml } from '../lib/html.js';
import type { HandoffPayload, LeadPayload } from './outbox.js';

/** An email as the worker sends it: plain text, and a minimal HTML part saying the same. */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Line breaks and other control characters out, and a length a subject line can carry (header injection aside, nodemailer encodes it). */
export function subjectText(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001F\u007F\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const UTM_ORDER = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];

function htmlDocument(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}

/** A value as HTML text: escaped, its line breaks kept. */
function htmlText(value: string): string {
  return escapeHtml(value).replace(/\r?\n/g, '<br>');
}

function table(rows: Array<[string, string]>): string {
  return `<table>${rows.map(([label, value]) => `<tr><th scope="row" align="left" valign="top">${escapeHtml(label)}</th><td>${htmlText(value)}</td></tr>`).join('')}</table>`;
}

/** "New lead: <form title>": every submitted value as text, the consent version, the page and UTM, the contact's link. */
export function leadEmail(payload: LeadPayload, publicUrl: string): RenderedEmail {
  const link = `${publicUrl}/app/contacts/${encodeURIComponent(payload.contactId)}`;
  const subject = subjectText(`New lead: ${payload.formTitle}`);
  const utm = UTM_ORDER.filter((key) => payload.utm[key] !== undefined).map((key): [string, string] => [key, payload.utm[key]!]);
  const origin: Array<[string, string]> = [
    ['Consent version', payload.consentVersion],
    ...(payload.pageUrl ? [['Page', payload.pageUrl] as [string, string]] : []),
    ...utm,
  ];
  const intro = payload.via === 'chat' ? `A new lead from the chat widget, through the form “${payload.formTitle}”.` : `The form “${payload.formTitle}” received a new lead.`;
  const text = [
    intro,
    '',
    ...payload.fields.map((field) => `${field.label}: ${field.value}`),
    '',
    ...origin.map(([label, value]) => `${label}: ${value}`),
    '',
    'Open the contact:',
    link,
  ].join('\n');
  const html = htmlDocument(subject, [
    `<p>${escapeHtml(intro)}</p>`,
    table(payload.fields.map((field) => [field.label, field.value])),
    table(origin),
    `<p><a href="${escapeHtml(link)}">Open the contact</a></p>`,
  ].join(''));
  return { subject, text, html };
}

/** "A visitor is waiting for a person": the agent, the page, the visitor's words, the conversation's link in the Inbox. */
export function handoffEmail(payload: HandoffPayload, publicUrl: string): RenderedEmail {
  const link = `${publicUrl}/app/inbox/${encodeURIComponent(payload.conversationId)}`;
  const subject = 'A visitor is waiting for a person';
  const rows: Array<[string, string]> = [
    ['Agent', payload.agentName],
    ...(payload.pageUrl ? [['Page', payload.pageUrl] as [string, string]] : []),
    ...(payload.summary ? [['Visitor', payload.summary] as [string, string]] : []),
  ];
  const intro = `A visitor asked ${payload.agentName} for a person.`;
  const text = [intro, '', ...rows.map(([label, value]) => `${label}: ${value}`), '', 'Take the conversation:', link].join('\n');
  const html = htmlDocument(subject, [
    `<p>${escapeHtml(intro)}</p>`,
    table(rows),
    `<p><a href="${escapeHtml(link)}">Take the conversation</a></p>`,
  ].join(''));
  return { subject, text, html };
}
