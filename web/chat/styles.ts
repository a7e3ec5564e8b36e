/**
 * The chat widget's one stylesheet, adopted as a constructable stylesheet in its shadow root (no
 * `<style>` element, no style attribute: a host CSP with no `style-src` at all allows it). Brand values
 * arrive as `--sc-*` custom properties set on the root with `style.setProperty` (CSSOM), every one of
 * them, so none inherits in from the host page.
 *
 * Isolation from the host page's CSS, as in web/form/styles.ts:
 * - the host element (`<svc-chat>`) takes `all: initial !important`: inside the shadow tree's own rules
 *   an important declaration wins over the page's important ones, so `body > * { display: none !important }`
 *   or `visibility: hidden` cannot touch it;
 * - the root (`.sc`) takes `all: initial` and `font: medium`: no inherited font, color, spacing or
 *   transform of the text; lengths are `em` of the element they are on, or px or %, never `rem`/`vw`/`vh`;
 * - everything drawn is `position: fixed`, out of the flow that carries the page's text decorations.
 * Below 480 px wide the open panel fills the window (a media query reads the viewport, which the host's CSS cannot change).
 *
 * In two parts: `launcherStyles`, adopted by chat-embed.js with the launcher (every page view), and
 * `panelStyles`, adopted beside it by the panel's module when the visitor first opens the chat (embed.ts).
 */
export const launcherStyles = `:host{all:initial!important;display:block!important}
.sc{all:initial;display:block;font:medium/1.5 var(--sc-font,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif);color:var(--sc-fg);direction:ltr;overflow-wrap:anywhere}
.sc *,.sc ::before,.sc ::after{box-sizing:border-box}
.sc [hidden]{display:none!important}
.sc :focus-visible{outline:3px solid var(--sc-ring);outline-offset:2px}
.sc-launch,.sc-panel,.sc-oops{position:fixed;z-index:2147483000;right:1.25em;bottom:1.25em}
.sc-launch{display:flex;align-items:center;justify-content:center;width:3.5em;height:3.5em;margin:0;padding:0;border:0;border-radius:50%;background:var(--sc-pri);color:var(--sc-on-pri);box-shadow:0 4px 14px rgba(0,0,0,.25);cursor:pointer}
.sc-new::after{content:"";position:absolute;top:0;right:0;width:.875em;height:.875em;border:2px solid var(--sc-bg);border-radius:50%;background:var(--sc-err)}
.sc-launch:focus-visible{box-shadow:0 0 0 2px #fff,0 4px 14px rgba(0,0,0,.25)}
.sc svg{width:1.5em;height:1.5em;fill:currentColor}
.sc-oops{bottom:5.5em;margin:0;padding:.5em;background:var(--sc-bg);color:var(--sc-err);border:1px solid;border-radius:.5em}
`;

export const panelStyles = `.sc-panel{display:flex;flex-direction:column;width:24em;max-width:calc(100% - 2.5em);height:40em;max-height:calc(100% - 2.5em);background:var(--sc-bg);border:1px solid var(--sc-line);border-radius:.75em;box-shadow:0 8px 30px rgba(0,0,0,.25);overflow:hidden}
.sc-head{display:flex;align-items:center;gap:.625em;padding:.5em .5em .5em 1em;border-bottom:1px solid var(--sc-line)}
.sc-logo{display:block;max-width:5em;max-height:2em}
.sc-title{flex:1;margin:0;font-size:1.125em;line-height:1.3;font-weight:700}
.sc-x{display:flex;align-items:center;justify-content:center;width:2.75em;height:2.75em;margin:0;padding:0;border:0;border-radius:.375em;background:none;color:inherit;cursor:pointer}
.sc-log{flex:1;display:flex;flex-direction:column;gap:.75em;padding:1em;overflow-y:auto;overscroll-behavior:contain}
.sc-log:focus-visible{outline-offset:-3px}
.sc-msg{max-width:85%;margin:0;padding:.5em .75em;border-radius:.75em}
.sc-user{align-self:flex-end;background:var(--sc-pri);color:var(--sc-on-pri);white-space:pre-wrap}
.sc-bot{align-self:flex-start;border:1px solid var(--sc-line)}
.sc-bot p,.sc-bot ul,.sc-bot ol,.sc-bot pre{margin:0 0 .5em}
.sc-bot>div>:last-child{margin-bottom:0}
.sc-bot ul,.sc-bot ol{padding:0 0 0 1.25em}
.sc-bot a{color:inherit;text-decoration:underline}
.sc code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.875em}
.sc pre{padding:.5em;border:1px solid var(--sc-line);border-radius:.375em;white-space:pre-wrap}
.sc-note{margin:0;font-style:italic}
.sc-op{background:var(--sc-op);color:var(--sc-on-op);border-left:.25em solid var(--sc-pri)}
.sc-who{font-size:.875em;font-weight:700}
.sc-ev{align-self:center;margin:0;font-size:.875em;font-style:italic;text-align:center}
.sc-sent{display:block;font-size:.75em;text-align:right}
.sc-bar{display:flex;gap:.5em;padding:.75em .75em 0;border-top:1px solid var(--sc-line)}
.sc-bar:not([hidden])+.sc-form{border-top:0}
.sc-fail{border-color:var(--sc-err);color:var(--sc-err);font-weight:600}
.sc-card{align-self:stretch;padding:.75em;border:1px solid var(--sc-line);border-radius:.75em}
.sc-ct{margin:0 0 .5em;font-weight:700}
.sc-f{margin:0 0 .75em}
.sc-f>label{display:block;margin:0 0 .25em;font-weight:600}
.sc-in{display:block;width:100%;min-height:2.75em;margin:0;padding:.5em .75em;font:inherit;color:inherit;background:var(--sc-bg);border:1px solid var(--sc-fg);border-radius:.375em}
textarea.sc-in{resize:none}
.sc-c{display:flex;gap:.625em;align-items:flex-start}
.sc-c input{flex:none;width:1.25em;height:1.25em;margin:.15em 0 0;accent-color:var(--sc-pri)}
.sc-c label{font-weight:400;white-space:pre-line}
.sc [aria-invalid=true]{outline:2px solid var(--sc-err)}
.sc-err{margin:.25em 0 0;color:var(--sc-err);font-weight:600}
.sc-row{display:flex;flex-wrap:wrap;gap:.5em}
.sc-btn{min-height:2.75em;margin:0;padding:.5em 1.25em;font:inherit;font-weight:700;border:1px solid var(--sc-pri);border-radius:.375em;background:var(--sc-pri);color:var(--sc-on-pri);cursor:pointer}
.sc-btn2{background:var(--sc-bg);color:var(--sc-fg);border-color:var(--sc-fg)}
.sc [aria-disabled=true]{cursor:progress}
.sc-btn:disabled{background:var(--sc-bg);color:var(--sc-fg);border-color:var(--sc-line);cursor:not-allowed}
.sc-form{display:flex;align-items:flex-end;gap:.5em;padding:.75em;border-top:1px solid var(--sc-line)}
.sc-form .sc-in{flex:1;max-height:8em}
.sc-sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:479.98px){.sc-panel{top:0;left:0;right:0;bottom:0;width:auto;height:auto;max-width:none;max-height:none;border:0;border-radius:0}}
`;
