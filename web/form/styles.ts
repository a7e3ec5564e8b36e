/**
 * The form's one stylesheet: adopted as a constructable stylesheet inside the embed's shadow root,
 * and served as a `<style nonce>` (or `form.css`) on the hosted page. Everything hangs off the
 * `.svc-form` root, and brand values arrive as custom properties set with `style.setProperty`
 * (CSSOM, which a strict CSP allows), so there are no inline style attributes anywhere.
 *
 * `all: initial` on the root stops inherited host styles (letter-spacing, text-transform, …)
 * from reaching in through the shadow boundary; `:host { display: block !important }` keeps a
 * host rule like `div { display: none !important }` off the host element itself (inside the
 * shadow tree's own rules, important wins over the page's important).
 *
 * Pure data: no DOM, so the server may import it too.
 */
export const ROOT_CLASS = 'svc-form';

export const formStyles = `:host{display:block!important}
.svc-form{all:initial;display:block;position:relative;box-sizing:border-box;max-width:40rem;padding:1.25rem;background:var(--sf-bg);color:var(--sf-fg);font:1rem/1.5 var(--sf-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);overflow-wrap:anywhere}
.svc-form *,.svc-form ::before,.svc-form ::after{box-sizing:border-box}
.svc-form [hidden]{display:none!important}
.svc-form :focus-visible{outline:3px solid var(--sf-ring);outline-offset:2px}
.sf-logo{display:block;max-width:100%;max-height:3rem;margin:0 0 .75rem}
.sf-title{margin:0 0 .5rem;font-size:1.5rem;line-height:1.25;font-weight:700}
.sf-note{margin:0 0 1rem;font-size:.875rem}
.sf-f{margin:0 0 1rem}
.sf-f>label{display:block;margin:0 0 .25rem;font-weight:600}
.sf-in{display:block;width:100%;min-height:2.75rem;margin:0;padding:.5rem .75rem;font:inherit;color:inherit;background:var(--sf-bg);border:1px solid var(--sf-fg);border-radius:.375rem}
textarea.sf-in{min-height:7rem;resize:vertical}
.sf-c{display:flex;gap:.625rem;align-items:flex-start}
.sf-c input{flex:none;width:1.25rem;height:1.25rem;margin:.15rem 0 0;accent-color:var(--sf-pri)}
.sf-c label{white-space:pre-line}
.sf-in[aria-invalid=true]{border:2px solid var(--sf-err)}
.sf-c input[aria-invalid=true]{box-shadow:0 0 0 2px var(--sf-err)}
.sf-err{margin:.25rem 0 0;color:var(--sf-err);font-weight:600}
.sf-msg{margin:0}
.sf-msg:not(:empty){margin:0 0 1rem;padding:.75rem;border:2px solid var(--sf-err);border-radius:.375rem}
.sf-btn{display:inline-block;max-width:100%;min-height:2.75rem;margin:0;padding:.625rem 1.5rem;font:inherit;font-weight:700;color:var(--sf-on-pri);background:var(--sf-pri);border:0;border-radius:.375rem;cursor:pointer}
.sf-btn[aria-disabled=true]{cursor:progress;opacity:.75}
.sf-done{margin:0;font-size:1.125rem;white-space:pre-line}
.sf-hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
`;
