import { escapeHtml } from '../lib/html.js';
import type { BuiltInField } from './rules.js';

/**
 * The three snippets of `GET /api/org/forms/{id}/embed`. None carries an inline `style` or script:
 * each works on a host page whose CSP is `default-src 'none'` plus our origin in `script-src`,
 * `connect-src`, `frame-src` and `img-src` (and the logo's origin in `img-src`; docs/embedding.md).
 *
 * The iframe is sized by its attributes (presentational hints, which CSP does not govern):
 * `width="100%"`, no border (`frameborder="0"`), and a fixed `height` in CSS pixels estimated from
 * the form as it is now, so it shows the whole form without a scrollbar when first drawn. A frame
 * cannot size itself without a script on the host page; the script snippet grows with the form.
 */

/** What the estimate reads of a form: its enabled fields, in order, and what else draws. */
export interface FormLayout {
  /** Enabled built-in fields, as drawn: `message` is a textarea. */
  builtIn: BuiltInField[];
  /** Types of the form's active custom fields (`textarea`, `checkbox`, …). */
  customTypes: string[];
  consentText: string;
  /** An agent's brand, which always has a logo. */
  logo: boolean;
}

/**
 * Heights in CSS pixels of the form's parts at the default 16px font and a 640px form (the form's
 * max-width of 40em), from web/form/styles.ts: line height 1.5 (24px). Measured in Chromium on the
 * embed page: a form with a logo, five inputs, a textarea, a checkbox and two lines of consent is
 * drawn 831px tall, exactly this estimate less the slack (src/forms/embed-isolation.browser.test.ts
 * checks the estimate covers the drawn form, with at most 240px to spare).
 */
const PX = {
  /** Padding (2 × 20), the title (30 + 8), the "Fields marked *" note (21 + 16) and the button (44). */
  frame: 40 + 38 + 37 + 44,
  logo: 48 + 12,
  /** Label 24 + 4, control 44, margin 16. */
  input: 88,
  /** Label 24 + 4, textarea 112, margin 16. */
  textarea: 156,
  /** One line beside the box, margin 16. */
  checkbox: 40,
  line: 24,
  /** Room for what a refused submission adds: the alert above the button (3 lines) and an error under two fields. */
  slack: 3 * 24 + 24 + 16 + 2 * 28,
};

/**
 * Characters of consent text per line: the label is 570px wide (640 − 40 padding − 30 box and gap),
 * and system-ui at 16px averages under 8px a character in English; 60 keeps the estimate on the high side.
 */
const CONSENT_CHARS_PER_LINE = 60;

function consentHeight(text: string): number {
  const lines = text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / CONSENT_CHARS_PER_LINE)), 0);
  return lines * PX.line + 16;
}

/** The iframe's height attribute: the form as first drawn, plus room for error messages. */
export function iframeHeight(layout: FormLayout): number {
  const control = (type: string) => (type === 'textarea' ? PX.textarea : type === 'checkbox' ? PX.checkbox : PX.input);
  const fields = layout.builtIn.map((name) => control(name === 'message' ? 'textarea' : 'text')).concat(layout.customTypes.map(control));
  return PX.frame + (layout.logo ? PX.logo : 0) + fields.reduce((sum, height) => sum + height, 0) + consentHeight(layout.consentText) + PX.slack;
}

export interface EmbedSnippets {
  directLink: string;
  iframe: string;
  script: string;
}

export function embedSnippets(publicUrl: string, form: { slug: string; title: string }, layout: FormLayout): EmbedSnippets {
  const link = `${publicUrl}/f/${form.slug}`;
  return {
    directLink: link,
    iframe:
      `<iframe src="${escapeHtml(`${link}?embed=1`)}" title="${escapeHtml(form.title)}" ` +
      `width="100%" height="${iframeHeight(layout)}" frameborder="0" loading="lazy"></iframe>`,
    script: `<div data-svc-form="${escapeHtml(form.slug)}"></div>\n<script async src="${escapeHtml(`${publicUrl}/form-embed.js`)}"></script>`,
  };
}
