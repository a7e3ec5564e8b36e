import { describe, expect, it } from 'vitest';
import { COMPARED_ATTRIBUTES, CONTROL_ROWS, expectedBody, rowConfig, rowPairs, type ControlRow } from '../../test/support/form-control-rows.js';
import { formControls, postedValues } from '../../web/form/controls.js';
import { buildBody } from '../../web/form/values.js';
import { renderFormPage } from './hosted-html.js';
import { postedBody } from './hosted-page.js';

/**
 * The control table (test/support/form-control-rows.ts) through the server's HTML and both body
 * builders: the no-JS post (`postedBody`, from the posted pairs) and the script (`buildBody`, from the
 * form's FormData as renderer.ts reads it). form-controls.browser.test.ts runs the same rows through
 * the browser renderer in Chromium.
 */

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
const decode = (html: string) => html.replace(/&(lt|gt|quot|#39|amp);/g, (entity) => ENTITIES[entity]!);
const pattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The element of `key` in the server's HTML, read back the way the row describes it. */
function serverControl(html: string, key: string) {
  const open = new RegExp(`<(input|textarea|select)\\b([^>]*\\sname="${pattern(key)}"[^>]*)>`).exec(html);
  if (!open) throw new Error(`no control named ${key}`);
  const all: Record<string, string> = {};
  for (const [, name, value] of open[2]!.matchAll(/([\w-]+)(?:="([^"]*)")?/g)) all[name!] = decode(value ?? '');
  const attrs = Object.fromEntries(COMPARED_ATTRIBUTES.filter((name) => name in all).map((name) => [name, all[name]!]));
  const label = new RegExp(`<label for="${all.id}">(.*?)(<span aria-hidden="true"> \\*</span>)?</label>`).exec(html);
  const element: ControlRow['element'] = { tag: open[1] as ControlRow['element']['tag'], attrs, label: decode(label?.[1] ?? '') };
  if (open[1] === 'select') {
    const body = html.slice(open.index, html.indexOf('</select>', open.index));
    element.options = [...body.matchAll(/<option value="([^"]*)"/g)].map((match) => decode(match[1]!));
  }
  return { element, star: Boolean(label?.[2]), open: open[0], after: html.slice(open.index + open[0].length) };
}

const page = (row: ControlRow, options: Partial<Parameters<typeof renderFormPage>[2]> = {}) =>
  renderFormPage(rowConfig(row), { css: '/form.css', script: '/form-page.js' }, { embed: false, utm: {}, ...options }).html;

describe.each(CONTROL_ROWS)('control table: $name', (row) => {
  const config = rowConfig(row);

  it('the server HTML draws the element, its label and (when required) the star', () => {
    const { element, star } = serverControl(page(row), row.key);
    expect(element).toEqual(row.element);
    expect(star).toBe('required' in row.element.attrs);
  });

  it('the server HTML, redrawn after a refused post, shows what was posted', () => {
    const values = postedValues(formControls(config), new Map(rowPairs(row)));
    const { open, after } = serverControl(page(row, { values }), row.key);
    if (row.input === true || row.input === false) expect(open.includes(' checked')).toBe(row.input);
    else if (row.element.tag === 'textarea') expect(decode(after.slice(0, after.indexOf('</textarea>')))).toBe(row.input);
    else if (row.element.tag === 'select') expect(decode(/<option value="([^"]*)" selected>/.exec(after)?.[1] ?? '')).toBe(row.input);
    else expect(decode(/\svalue="([^"]*)"/.exec(open)?.[1] ?? '')).toBe(row.input);
  });

  it('the no-JS post and the script build the same body', () => {
    const pairs = rowPairs(row);
    const formData = new FormData();
    for (const [name, value] of pairs) formData.append(name, value);
    const script = buildBody(config, postedValues(formControls(config), formData), {}, '');
    expect.soft(postedBody(config, new Map(pairs)), 'no-JS post body').toEqual(expectedBody(row));
    expect.soft(script, 'script body').toEqual(expectedBody(row));
  });
});

describe('control table: order', () => {
  it('the server HTML draws the controls in the model order: built-in fields, custom fields, consent', () => {
    const all = rowConfig(CONTROL_ROWS[0]!);
    for (const name of ['name', 'email', 'phone', 'company', 'message'] as const) all.fields[name] = { enabled: true, required: false };
    all.customFields = CONTROL_ROWS.flatMap((row) => ('custom' in row.field ? [row.field.custom] : [])).filter((field, i, list) => list.findIndex((f) => f.key === field.key) === i);
    const html = renderFormPage(all, { css: '/form.css', script: '/form-page.js' }, { embed: false, utm: {} }).html;
    const names = [...html.matchAll(/<(?:input|textarea|select)\b[^>]*\sname="([^"]+)"/g)].map((match) => match[1]).filter((name) => name !== '_hp' && name !== 'consentVersion');
    const keys = formControls(all).map((control) => control.key);
    expect(names).toEqual(keys);
    expect(keys).toEqual(['name', 'email', 'phone', 'company', 'message', ...all.customFields.map((field) => `custom.${field.key}`), 'consent']);
  });
});
