import { describe, expect, it } from 'vitest';
import { formStyles } from './styles.js';

/**
 * The host page's CSS must not size the embedded form. These are the rules of the stylesheet that
 * keep it out, read from its text so `npm test` guards them without a browser; the browser suite
 * (src/forms/embed-isolation.browser.test.ts) checks the drawn result under a hostile host page.
 */
describe('formStyles', () => {
  it('uses no unit that follows the host page: rem and the other root-relative units, viewport units', () => {
    // rem/rlh/rex/rch/ric/rcap follow the host's <html>; vw/vh/vi/vb/vmin/vmax (and the s/l/d variants) the window.
    const rootOrViewport = /\d(?:r(?:em|lh|ex|ch|ic|cap)|[sld]?v(?:w|h|i|b|min|max))\b/g;
    expect(formStyles.match(rootOrViewport)).toBeNull();
  });

  it('anchors the root at the visitor\'s default size, drops every inherited value, and fixes the direction', () => {
    const root = /(?:^|\n)\.svc-form\{([^}]*)\}/.exec(formStyles)?.[1] ?? '';
    expect(root).toMatch(/^all:initial;/);
    expect(root).toMatch(/font:medium\//);
    expect(root).toMatch(/direction:ltr/);
  });

  it('keeps the host element shown, and the form out of the flow that carries the page\'s text decorations', () => {
    expect(formStyles).toMatch(/:host\{display:flow-root!important\}/);
    expect(formStyles).toMatch(/:host>\.svc-form\{float:left;width:100%\}/);
  });
});
