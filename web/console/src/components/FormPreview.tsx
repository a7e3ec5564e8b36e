import { useEffect, useRef } from 'react';
import { formStyles, renderForm, type RenderedForm } from '../../../form/renderer';
import type { PublicFormConfig } from '../../../form/types';

let sheet: CSSStyleSheet | undefined;

/**
 * The live preview: the real form renderer (web/form, the one the hosted page and form-embed.js use)
 * drawing `config` into a shadow root, styled by the renderer's own stylesheet. In preview mode the
 * renderer checks the fields as a visitor would see it but sends nothing. What was typed survives a redraw.
 */
export function FormPreview({ config, label = 'Preview' }: { config: PublicFormConfig; label?: string }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const rendered = useRef<RenderedForm | null>(null);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const timer = setTimeout(() => {
      const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(formStyles);
      }
      shadow.adoptedStyleSheets = [sheet];
      const values = rendered.current?.values();
      rendered.current = renderForm(shadow, config, { preview: true, headingLevel: 3, ...(values ? { values } : {}) });
    }, 120);
    return () => clearTimeout(timer);
  }, [config]);

  return <div ref={hostRef} className="preview-frame" role="region" aria-label={label} />;
}
