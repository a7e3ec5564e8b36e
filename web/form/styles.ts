/**
 * The form's one stylesheet: adopted as a constructable stylesheet inside the embed's shadow root,
 * and served as a `<style nonce>` (or `form.css`) on the hosted page. Everything hangs off the
 * `.svc-form` root, and brand values arrive as custom properties set with `style.setProperty`
 * (CSSOM, which a strict CSP allows), so there are no inline style attributes anywhere.
 *
 * What keeps the host page's CSS out of the embed (checked in Chromium by
 * src/forms/embed-isolation.browser.test.ts):
 * - Sizes are anchored inside the form: the root's font-size is `medium` (the visitor's own default
 *   size, 16px unless they changed it: no page can set it) and every length below is in `em` of
 *   the element it is on, or px. No `rem`, `vw`, `vh`: those follow the host's `html` and window.
 *   Where an element changes its font-size, its own ems are divided by that factor (`calc(1em/.875)`
 *   is the root's 1em on a `.875em` element), so the form looks as it did in rem on a 16px page.
 * - `all: initial` on the root drops every inherited value (font, color, line-height,
 *   letter-spacing, text-transform, visibility, …) except the three that `all` leaves alone:
 *   `direction` (set here), `unicode-bidi` (not inherited) and custom properties (`applyBranding`
 *   sets every `--sf-*` on the root, `--sf-font` to `initial` when the brand has none).
 * - Text decorations of ancestors (`body { text-decoration: underline }`) are not inherited but
 *   drawn through every in-flow block: in the shadow root the form floats (out of flow, so none
 *   reaches it) inside a host made `flow-root` (which contains the float).
 * - `:host { display: … !important }` keeps a rule like `div { display: none !important }` off
 *   the host element (inside the shadow tree's own rules, important wins over the page's important).
 *
 * Pure data: no DOM, so the server may import it too.
 */
export const ROOT_CLASS = 'svc-form';

export const formStyles = `:host{display:flow-root!important}
:host>.svc-form{float:left;width:100%}
.svc-form{all:initial;display:block;position:relative;box-sizing:border-box;max-width:40em;padding:1.25em;background:var(--sf-bg);color:var(--sf-fg);font:medium/1.5 var(--sf-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);direction:ltr;overflow-wrap:anywhere}
.svc-form *,.svc-form ::before,.svc-form ::after{box-sizing:border-box}
.svc-form [hidden]{display:none!important}
.svc-form :focus-visible{outline:3px solid var(--sf-ring);outline-offset:2px}
.sf-logo{display:block;max-width:100%;max-height:3em;margin:0 0 .75em}
.sf-title{margin:0 0 calc(.5em/1.5);font-size:1.5em;line-height:1.25;font-weight:700}
.sf-note{margin:0 0 calc(1em/.875);font-size:.875em}
.sf-f{margin:0 0 1em}
.sf-f>label{display:block;margin:0 0 .25em;font-weight:600}
.sf-in{display:block;width:100%;min-height:2.75em;margin:0;padding:.5em .75em;font:inherit;color:inherit;background:var(--sf-bg);border:1px solid var(--sf-fg);border-radius:.375em}
textarea.sf-in{min-height:7em;resize:vertical}
.sf-c{display:flex;gap:.625em;align-items:flex-start}
.sf-c input{flex:none;width:1.25em;height:1.25em;margin:.15em 0 0;font:inherit;accent-color:var(--sf-pri)}
.sf-c label{white-space:pre-line}
.sf-in[aria-invalid=true]{border:2px solid var(--sf-err)}
.sf-c input[aria-invalid=true]{box-shadow:0 0 0 2px var(--sf-err)}
.sf-err{margin:.25em 0 0;color:var(--sf-err);font-weight:600}
.sf-msg{margin:0}
.sf-msg:not(:empty){margin:0 0 1em;padding:.75em;border:2px solid var(--sf-err);border-radius:.375em}
.sf-btn{display:inline-block;max-width:100%;min-height:2.75em;margin:0;padding:.625em 1.5em;font:inherit;font-weight:700;color:var(--sf-on-pri);background:var(--sf-pri);border:0;border-radius:.375em;cursor:pointer}
.sf-btn[aria-disabled=true]{cursor:progress;opacity:.75}
.sf-done{margin:0;font-size:1.125em;white-space:pre-line}
.sf-hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
`;
