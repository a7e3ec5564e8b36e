import { useLayoutEffect, useRef, useState } from 'react';
import { palette } from '../../../../form/contrast';
import { BUILT_IN_FIELDS, type Branding, type FormWithCounts } from '../../api/types';

const LABELS: Record<(typeof BUILT_IN_FIELDS)[number], string> = { name: 'Name', email: 'Email', phone: 'Phone', company: 'Company', message: 'Message' };
const SAMPLE_QUESTION = 'Could someone call me back about an appointment?';

/**
 * What a visitor sees, drawn by the console itself: the open panel and the launcher in the agent's brand,
 * the welcome message, and (with a lead form) the capture card with the form's fields, its consent text and
 * an unticked box. Nothing here is interactive or sends anything. Colors go through palette(), the form
 * renderer's contrast rules, so a brand that fails AA is drawn readable (as the widget draws it), and are
 * set as custom properties through the CSSOM (the console's CSP refuses style attributes).
 *
 * Why not the real script in a sandboxed iframe: its every request carries the page's Origin, and the
 * console's origin (or a srcdoc's "null") is not on the agent's list, so it would be refused by design.
 */
export function ChatPreview({ branding, welcomeMessage, leadForm, enabled }: { branding: Branding; welcomeMessage: string; leadForm: FormWithCounts | null; enabled: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const [logoFailed, setLogoFailed] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const colors = palette(branding);
    el.style.setProperty('--pv-bg', colors.background);
    el.style.setProperty('--pv-text', colors.text);
    el.style.setProperty('--pv-primary', colors.primary);
    el.style.setProperty('--pv-on-primary', colors.onPrimary);
    el.style.setProperty('--pv-ring', colors.ring);
    if (branding.fontFamily) el.style.setProperty('--pv-font', branding.fontFamily);
    else el.style.removeProperty('--pv-font');
  }, [branding]);

  const fields = leadForm ? BUILT_IN_FIELDS.filter((name) => leadForm.fields[name].enabled) : [];
  const customCount = leadForm ? leadForm.customFields.filter((field) => !field.archived).length : 0;
  const logo = !logoFailed && branding.logoUrl.startsWith('https://') ? branding.logoUrl : '';

  return (
    <figure className="chat-pv" aria-labelledby="chat-pv-caption">
      <div ref={ref} className="chat-pv-stage">
        <div className="chat-pv-panel">
          <div className="chat-pv-head">
            {logo ? <img src={logo} alt="" className="chat-pv-logo" onError={() => setLogoFailed(true)} /> : null}
            <span className="chat-pv-name">{branding.name}</span>
          </div>
          <div className="chat-pv-log">
            {welcomeMessage ? <p className="chat-pv-msg chat-pv-agent">{welcomeMessage}</p> : null}
            <p className="chat-pv-msg chat-pv-visitor">{SAMPLE_QUESTION}</p>
            {leadForm ? (
              <div className="chat-pv-card">
                <p className="chat-pv-card-title">Share your details?</p>
                {fields.map((name) => (
                  <div key={name} className="chat-pv-field">
                    <span>
                      {LABELS[name]}
                      {leadForm.fields[name].required ? ' *' : ''}
                    </span>
                    <span className="chat-pv-input" />
                  </div>
                ))}
                {customCount ? <p className="chat-pv-small">and {customCount === 1 ? '1 more field' : `${customCount} more fields`}</p> : null}
                <p className="chat-pv-consent">
                  <span className="chat-pv-box" />
                  <span>{leadForm.consentText}</span>
                </p>
                <p className="chat-pv-buttons">
                  <span className="chat-pv-send">Send</span>
                  <span className="chat-pv-plain">No thanks</span>
                </p>
              </div>
            ) : null}
          </div>
          <div className="chat-pv-compose">
            <span className="chat-pv-input chat-pv-type">Type your message…</span>
            <span className="chat-pv-send">Send</span>
          </div>
        </div>
        <span className="chat-pv-launcher">
          <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" />
          </svg>
        </span>
      </div>
      <figcaption id="chat-pv-caption" className="hint">
        {enabled ? 'The button in the corner of your pages opens this panel.' : 'Off: visitors see nothing yet. Once on, the button in the corner of your pages opens this panel.'}
        {leadForm ? ' The card appears when a visitor wants to be contacted; nothing is sent until they tick the box and send.' : ''}
      </figcaption>
    </figure>
  );
}
