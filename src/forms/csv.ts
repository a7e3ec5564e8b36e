/**
 * CSV cells (RFC 4180) that spreadsheets cannot run: a cell starting with = + - @, a tab or a
 * carriage return would be read as a formula (CSV injection), so it gets a leading `'`.
 * Quoted when it holds a quote, a comma or a line break.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
