import { CONSENT, formControls, submissionBody, type FormControl, type Values } from '../../web/form/controls.js';
import type { PendingTool } from '../conversations/loop.js';
import type { LiveForm } from '../forms/public-form.js';
import type { PublicFormConfig } from '../forms/schema.js';

/**
 * The chat widget's lead capture, as the model and the visitor see it: the agent's lead form turned into the
 * `capture_lead` tool (its parameters are the form's enabled fields), the card the widget draws, and the
 * submission body the visitor's confirmed values become. Everything is drawn from the form's one control model
 * (web/form/controls.ts), as the hosted page and the embed are, so a field means the same thing in all three.
 * Consent is never a parameter: only the visitor ticks it, on the card.
 */

export const CAPTURE_LEAD = 'capture_lead';

/** A field of the card: its key (a built-in field's name, `custom.<key>`), as the form shows it. */
export interface LeadField {
  name: string;
  label: string;
  /** The control's type: text, email, tel, textarea, number, url, date, checkbox or select. */
  type: string;
  required: boolean;
  options?: string[];
}

export type LeadValues = Record<string, string | number | boolean>;

/** What the widget needs to draw a lead card. */
export interface LeadCard {
  fields: LeadField[];
  consentText: string;
  /** Always true: a form takes no lead without its consent (forms/submission-check.ts checkConsent). */
  consentRequired: true;
}

/** The data of the chat stream's `lead-capture` event: a card to draw. */
export interface LeadCaptureEvent {
  toolCallId: string;
  fields: LeadField[];
  values: LeadValues;
  consentText: string;
  consentRequired: boolean;
}

/** A card in the session's history. */
export interface LeadCardMessage {
  role: 'lead';
  toolCallId: string;
  status: 'pending' | 'submitted' | 'declined';
  fields: LeadField[];
  values: LeadValues;
  consentText: string;
}

/** What a widget turn offers (LeadCapture.offer). */
export interface LeadOffer {
  pendingTools: PendingTool[];
  /** The card for a pending call of the turn; undefined for any other call. */
  captureEvent: (call: { id: string; name: string; arguments: unknown }) => LeadCaptureEvent | undefined;
}

const configOf = (form: LiveForm) => (JSON.parse(form.configBody) as { data: PublicFormConfig }).data;

/** The form's controls without the consent box: what the model may fill and the visitor may edit. */
function fieldControls(form: LiveForm): FormControl[] {
  return formControls(configOf(form)).filter((control) => control.key !== CONSENT);
}

export function leadCard(form: LiveForm): LeadCard {
  return {
    fields: fieldControls(form).map((control) => ({
      name: control.key, label: control.label, type: control.type, required: control.required,
      ...(control.type === 'select' ? { options: control.options } : {}),
    })),
    consentText: configOf(form).consentText,
    consentRequired: true,
  };
}

/** One field's JSON Schema: its kind, its choices or length, and its label as the description. */
function fieldSchema(control: FormControl): Record<string, unknown> {
  const description = control.label;
  if (control.type === 'checkbox') return { type: 'boolean', description };
  if (control.type === 'number') return { type: 'number', description };
  if (control.type === 'select') return { type: 'string', ...(control.options.length > 0 ? { enum: control.options } : {}), description };
  const format = control.type === 'email' ? { format: 'email' } : control.type === 'url' ? { format: 'uri' } : control.type === 'date' ? { format: 'date' } : {};
  return { type: 'string', ...format, ...(control.maxLength ? { maxLength: control.maxLength } : {}), description };
}

/**
 * `capture_lead` for the form: offered without `execute` (conversations/loop.ts PendingTool), so a call ends the
 * turn with the card pending and nothing is stored in the CRM; the visitor's confirm (lead-routes.ts) submits it.
 */
export function captureLeadTool(form: LiveForm): PendingTool {
  const controls = fieldControls(form);
  const identity = controls.filter((control) => control.key === 'email' || control.key === 'phone').map((control) => control.label.toLowerCase());
  return {
    name: CAPTURE_LEAD,
    description:
      `Offer the visitor the "${form.title}" form, filled in with what they told you, so they can be contacted. ` +
      'Call it when the visitor wants to be contacted, get a quote or an appointment, or leave their details. ' +
      'Ask the visitor first for what it needs; fill in only what the visitor said in this conversation, never guess or invent a value' +
      (identity.length > 0 ? `, and include their ${identity.join(' or ')}. ` : '. ') +
      'Calling it sends nothing: the visitor sees a card with these values, can correct them, must tick the consent box themselves, and then sends it or declines. ' +
      'The result tells you what they chose: {"status":"submitted"} or {"status":"declined"}.',
    parameters: {
      type: 'object',
      properties: Object.fromEntries(controls.map((control) => [control.key, fieldSchema(control)])),
      required: controls.filter((control) => control.required).map((control) => control.key),
      additionalProperties: false,
    },
  };
}

/**
 * The values a card shows or a visitor sends: the form's fields only, each of a kind its control can hold
 * (text for text, a number for a number field, true or false for a checkbox), text cut to the field's length.
 */
export function leadValues(form: LiveForm, raw: unknown): LeadValues {
  const values: LeadValues = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return values;
  for (const control of fieldControls(form)) {
    if (!Object.prototype.hasOwnProperty.call(raw, control.key)) continue;
    const value = (raw as Record<string, unknown>)[control.key];
    if (control.type === 'checkbox') {
      if (typeof value === 'boolean') values[control.key] = value;
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      values[control.key] = control.type === 'number' ? value : String(value);
    } else if (typeof value === 'string') {
      values[control.key] = [...value].slice(0, control.maxLength ?? 5000).join('');
    }
  }
  return values;
}

/**
 * The submission body of the card as the visitor confirmed it, for the form's own submit path: built by the
 * form's one body builder (the embed and the hosted page use it too), the consent version only when the visitor
 * ticked the box, the chat's UTM as the submission's, and no honeypot (a person at a chat is not a form bot).
 */
export function leadSubmission(form: LiveForm, values: LeadValues, consent: boolean, metadata: Record<string, string>): Record<string, unknown> {
  const typed: Values = {};
  for (const [key, value] of Object.entries(values)) typed[key] = typeof value === 'number' ? String(value) : value;
  const body: Record<string, unknown> = { ...submissionBody(fieldControls(form), typed, { consentVersion: consent ? form.consentVersion : undefined, metadata, honeypot: '' }) };
  delete body._hp;
  return body;
}
