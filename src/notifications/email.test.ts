import { describe, expect, it } from 'vitest';
import { handoffEmail, leadEmail, subjectText } from './email.js';

describe('notification emails', () => {
  it('keeps line breaks and control characters out of a subject, and its length bounded', () => {
    expect(subjectText('New lead: Quote\r\nBcc: evil@example.com')).toBe('New lead: Quote Bcc: evil@example.com');
    expect(subjectText(`New lead: ${'x'.repeat(300)}`)).toHaveLength(120);
  });

  it('writes every value as text: escaped in the HTML part, as sent in the plain part', () => {
    const email = leadEmail({
      formId: 'frm_1', formTitle: 'A <b>form</b>', submissionId: 'sub_1', contactId: 'ct_1', via: 'form',
      fields: [{ label: 'Name', value: '"><img src=x onerror=alert(1)>' }], consentVersion: '3', pageUrl: null, utm: {},
    }, 'https://sb.example.com');
    expect(email.subject).toBe('New lead: A <b>form</b>');
    expect(email.text).toContain('Name: "><img src=x onerror=alert(1)>');
    expect(email.text).not.toContain('Page:');
    expect(email.html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(email.html).not.toMatch(/<img|<b>/);
    expect(email.html).toContain('<a href="https://sb.example.com/app/contacts/ct_1">');
  });

  it('a hand-off names the agent and links the conversation in the Inbox', () => {
    const email = handoffEmail({ conversationId: 'conv_1', agentName: 'Ava', pageUrl: null, summary: null }, 'https://sb.example.com');
    expect(email.subject).toBe('A visitor is waiting for a person');
    expect(email.text).toBe('A visitor asked Ava for a person.\n\nAgent: Ava\n\nTake the conversation:\nhttps://sb.example.com/app/inbox/conv_1');
  });
});
