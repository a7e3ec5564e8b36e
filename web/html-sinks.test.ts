import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Server text (operators', visitors' and developers' strings, in the console and in the form
 * renderer its previews share with the hosted page and the embed) reaches the browser's DOM only as
 * text: React's JSX text, `textContent`, `append`, `setAttribute`. It becomes markup only through an
 * HTML sink, and every one of those is a named API, so this check reads every browser source file
 * under web/ with the TypeScript parser and fails on any of them: the properties and methods that
 * parse HTML, React's `dangerouslySetInnerHTML`, `document.write`, `execCommand('insertHTML')`, and
 * `javascript:` URLs. It sees them as identifiers, property names, object keys, JSX attributes and
 * string keys (`el['innerHTML']`, `Reflect.set(el, 'innerHTML', …)`), not in comments or prose.
 *
 * Why a static check rather than rendering: React escapes every text it renders, so rendering pages
 * on the server (react-dom/server) only re-tests React, and it runs no effects, where the DOM code
 * lives (the console's FormPreview draws the renderer from an effect). No DOM implementation is a
 * dependency, and the browser suite, which does render, runs only under `npm run services`. The
 * ESLint rules for web/ name fewer sinks and are not part of `npm test`.
 */
const WEB = resolve(import.meta.dirname);

/** Names that parse HTML (or run a string as a URL) whatever object they are reached through. */
const SINK_NAMES = new Map<string, string>([
  ['innerHTML', 'parses HTML'],
  ['outerHTML', 'parses HTML'],
  ['insertAdjacentHTML', 'parses HTML'],
  ['createContextualFragment', 'parses HTML'],
  ['setHTMLUnsafe', 'parses HTML'],
  ['parseHTMLUnsafe', 'parses HTML'],
  ['DOMParser', 'parses HTML'],
  ['parseFromString', 'parses HTML'],
  ['srcdoc', 'parses HTML into a frame'],
  ['dangerouslySetInnerHTML', 'makes React parse HTML'],
  ['insertHTML', 'parses HTML (execCommand)'],
]);
/** `write`/`writeln` are HTML sinks on a document. */
const DOCUMENT = /(^|\.)(document|doc|\w*Document)$/;

interface SinkFinding {
  file: string;
  line: number;
  text: string;
  why: string;
}

/** Every HTML sink in one source file. */
function findHtmlSinks(file: string, source: string): SinkFinding[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const findings: SinkFinding[] = [];
  const report = (node: ts.Node, why: string) =>
    findings.push({ file, line: sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1, text: node.getText(sourceFile).slice(0, 80), why });
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const name = node.text;
      const why = SINK_NAMES.get(name);
      if (why) report(node, why);
      if (!ts.isIdentifier(node) && !ts.isPrivateIdentifier(node) && /^\s*javascript:/i.test(name)) report(node, 'is a javascript: URL');
    }
    if (ts.isTemplateHead(node) && /^\s*javascript:/i.test(node.text)) report(node, 'is a javascript: URL');
    if (ts.isPropertyAccessExpression(node) && (node.name.text === 'write' || node.name.text === 'writeln') && DOCUMENT.test(node.expression.getText(sourceFile))) {
      report(node, 'writes HTML into a document');
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return findings;
}

/** The browser's source files: everything under web/ but tests and build configuration. */
function browserSources(dir = WEB): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : browserSources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !/\.config\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('HTML sinks in the browser code', () => {
  it('finds every kind of sink, however it is reached, and nothing that only sets text', () => {
    const sinks = [
      'el.innerHTML = name;',
      "el['outerHTML'] = name;",
      'Object.assign(el, { innerHTML: name });',
      "Reflect.set(el, 'innerHTML', name);",
      "el.insertAdjacentHTML('beforeend', name);",
      'doc.write(name);',
      'document.writeln(name);',
      'root.ownerDocument.write(name);',
      "new DOMParser().parseFromString(name, 'text/html');",
      'range.createContextualFragment(name);',
      'frame.srcdoc = name;',
      'el.setHTMLUnsafe(name);',
      'Document.parseHTMLUnsafe(name);',
      "createElement('div', { dangerouslySetInnerHTML: { __html: name } });",
      "document.execCommand('insertHTML', false, name);",
      "a.href = 'javascript:' + name;",
      'location.assign(`javascript:${name}`);',
    ];
    for (const line of sinks) expect([line, findHtmlSinks('sink.ts', line).length > 0]).toEqual([line, true]);
    expect(findHtmlSinks('sink.tsx', 'const x = <div dangerouslySetInnerHTML={{ __html: name }} />;')).toHaveLength(1);

    const text = [
      'el.textContent = name;',
      'el.append(name, other);',
      "el.setAttribute('title', name);",
      'stream.write(chunk);',
      '// never el.innerHTML = name',
      "const message = 'Set text with textContent; operator strings are never innerHTML.';",
    ];
    for (const line of text) expect([line, findHtmlSinks('text.ts', line)]).toEqual([line, []]);
    expect(findHtmlSinks('text.tsx', 'const x = <p title={name}>{name}</p>;')).toEqual([]);
  });

  it('has none: the console, the form renderer, the embed, the hosted page script and the chat widget set server text as text', () => {
    const files = browserSources();
    const names = files.map((file) => relative(WEB, file));
    // The check reads the code it guards.
    for (const expected of ['console/src/main.tsx', 'console/src/components/FormPreview.tsx', 'console/src/pages/crm/Contact.tsx', 'form/renderer.ts', 'form/embed.ts', 'form/page.ts', 'chat/markdown.ts', 'chat/widget.ts', 'chat/embed.ts']) {
      expect(names).toContain(expected);
    }
    const findings = files.flatMap((file) => findHtmlSinks(relative(WEB, file), readFileSync(file, 'utf8')));
    expect(findings.map((f) => `web/${f.file}:${f.line} ${f.text} — ${f.why}`)).toEqual([]);
  });
});
