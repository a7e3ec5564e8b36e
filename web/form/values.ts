import type { Failure } from './api.js';
import { CONSENT, formControls, submissionBody, type Values } from './controls.js';
import type { PublicFormConfig, SubmitBody } from './types.js';

export { CONSENT, type Values } from './controls.js';

/** The script's submission body: the one builder (controls.ts) with the consent version the form shows. */
export function buildBody(config: PublicFormConfig, values: Values, metadata: Record<string, string>, honeypot: string): SubmitBody {
  return submissionBody(formControls(config), values, { consentVersion: config.consentVersion, metadata, honeypot });
}

/**
 * The controls a refusal marks, by control key. FIELD_REQUIRED and INVALID_FIELD name one field
 * (`phone`, `custom.<key>`; `consentVersion` is the consent box); IDENTITY_REQUIRED marks email
 * and phone, whichever the form shows. A field the form does not show marks nothing.
 */
export function controlsToMark(failure: Pick<Failure, 'code' | 'field'>, shown: (key: string) => boolean): string[] {
  let keys: string[] = [];
  if (failure.code === 'IDENTITY_REQUIRED') keys = ['email', 'phone'];
  else if (failure.code === 'CONSENT_REQUIRED') keys = [CONSENT];
  else if ((failure.code === 'FIELD_REQUIRED' || failure.code === 'INVALID_FIELD') && failure.field) {
    keys = [failure.field === 'consentVersion' ? CONSENT : failure.field];
  }
  return keys.filter(shown);
}
