import type { Fetch } from './api.js';
import type { PublicFormConfig } from './types.js';
import type { FormControl } from './controls.js';
import type { Values } from './values.js';

/** The options of renderForm (renderer.ts). */
export interface RenderOptions {
  /** Where the public Forms API lives: the service's origin, or '' (the default) for the page's own. */
  apiBase?: string;
  /** The URL whose `utm_*` parameters go into `metadata`: the host page's. Default: `location.href` when the visitor submits. */
  pageUrl?: string;
  /**
   * Goes to a success `redirectUrl` (already checked to be http: or https:). Default: `location.assign`.
   * The hosted page in an iframe passes one that navigates the top window.
   */
  navigate?: (url: string) => void;
  /** Level of the title's heading: 1 on the hosted page; 2 (the default) inside another page. */
  headingLevel?: 1 | 2 | 3 | 4 | 5 | 6;
  /** Values to start with, by control key (`email`, `custom.<key>`, `consent`): what the visitor typed before a re-render. */
  values?: Values;
  /** The console's live preview: checks the fields as usual but sends nothing. */
  preview?: boolean;
  /** Replaces `fetch` (tests). */
  fetch?: Fetch;
  /** Makes an Idempotency-Key (tests). Default: `crypto.randomUUID`. */
  newKey?: () => string;
  onReady?: () => void;
  /** After a successful submission; carries no personal data. */
  onSubmitted?: (detail: { successMessage: string; redirectUrl: string | null }) => void;
  /** After a refusal or failure of the API (NETWORK_ERROR when it could not be reached). */
  onError?: (detail: { code: string; message: string }) => void;
}

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The parts of a drawn form that its submission works on (submit.ts). */
export interface DrawnForm {
  config: PublicFormConfig;
  options: RenderOptions;
  form: HTMLFormElement;
  /** The form's alert line: what a refusal or failure says. */
  status: HTMLElement;
  button: HTMLButtonElement;
  honeypot: HTMLInputElement;
  /** Each control and its error line, by control key, in order. */
  controls: Map<string, { input: Control; error: HTMLElement }>;
  /** The consent box's label text: a changed consent text replaces its data in place. */
  consentText: Text;
  /** The controls drawn (controls.ts), in order. */
  list: FormControl[];
}

/** Makes a drawn form's submit handler (submit.ts `submitter`). */
export type Submitter = (drawn: DrawnForm) => () => Promise<void>;
