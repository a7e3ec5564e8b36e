import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * No import cycle in src/ or web/ (issue 19), and none between the folders of src/ (issue 32).
 * Every .ts/.tsx file is parsed with the TypeScript compiler (a dependency already; madge or an
 * ESLint plugin would add one) and every relative
 * module reference becomes an edge: `import`, `import type`, `export … from`, `import('…')` with
 * a literal and `typeof import('…')`. Type-only imports count although they erase at run time:
 * a cycle of types still ties two modules together (neither can be understood, moved or split
 * without the other), and the cycle issue 19 names (invocation/service.ts ↔ tool-cache.ts) was
 * closed by an `import type`. Lazy `import()` counts too: it defers loading, not the coupling.
 *
 * Folders (the first segment of a path under src/: crm, forms, lib, …) are held to the same rule on
 * the same edges: two folders that reference each other, or a longer ring of them, is one feature in
 * two places. The files directly in src/ (app.ts, services.ts, cli.ts, config.ts, …) are the
 * composition root: they may import any folder, and no folder imports them. Tests (`*.test.ts`) are
 * leaves, as the root is: nothing imports a test, so a test cannot tie two folders together, and an
 * integration test beside its feature may build the whole app. The ground floors have a fixed order
 * (FLOORS): lib/ imports nothing of ours outside lib/, db/ only lib/, http/ only lib/ and db/, and
 * net/ (outbound calls) only lib/ and http/. docs/ARCHITECTURE.md, "Layers", has the order above them.
 */

const ROOT = join(import.meta.dirname, '..');
const SCANNED = ['src', 'web'];
const EXTENSIONS = ['.ts', '.tsx'];

type Graph = Map<string, string[]>;

/** Every .ts/.tsx file under a folder (declaration files and node_modules aside), as absolute paths. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier a file names, in source order. */
function specifiersIn(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) found.push(first.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The file a relative specifier names, or undefined for a package or a file outside the set.
 * NodeNext code writes `./x.js` for `./x.ts`; the console (Vite, Bundler resolution) writes `./x`
 * for `./x.ts`, `./x.tsx` or `./x/index.ts(x)`.
 */
function resolveSpecifier(fromFile: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(fromFile), specifier);
  const stem = /\.(m|c)?jsx?$/.test(base) ? base.replace(/\.(m|c)?jsx?$/, '') : base;
  const candidates = [base, ...EXTENSIONS.map((ext) => stem + ext), ...EXTENSIONS.map((ext) => join(base, `index${ext}`))];
  return candidates.find((candidate) => files.has(candidate));
}

/** The import graph of a set of files: each file to the files it references, in source order. */
function importGraph(files: ReadonlyMap<string, string>): Graph {
  const names = new Set(files.keys());
  const graph: Graph = new Map();
  for (const [file, text] of files) {
    const targets = specifiersIn(file, text).map((specifier) => resolveSpecifier(file, specifier, names));
    graph.set(file, [...new Set(targets.filter((target): target is string => target !== undefined))]);
  }
  return graph;
}

/**
 * One cycle per strongly connected component (Tarjan), each as a path that starts and ends at the
 * same file: the shortest way back to the component's first file, found breadth-first inside it.
 * Breaking that cycle may leave another in the same component; the test then names the next one.
 */
function findCycles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];

  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);

  return components.map((component) => {
    const members = new Set(component);
    const start = [...component].sort()[0]!;
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const next of graph.get(node) ?? []) {
        if (next === start) {
          const path = [start];
          for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) path.splice(1, 0, at);
          return [...path, start];
        }
        if (members.has(next) && !previous.has(next)) {
          previous.set(next, node);
          queue.push(next);
        }
      }
    }
    return [start, start];
  }).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The folder of src/ a file is in (its first path segment there), or undefined for the composition root, a test, or a file outside src/. */
function folderOf(file: string): string | undefined {
  const path = relative(join(ROOT, 'src'), file).split(sep);
  if (path[0] === '..' || path.length < 2 || /\.test\.tsx?$/.test(file)) return undefined;
  return path[0];
}

/** A file edge as paths under src/: `crm/present.ts → forms/schema.ts`. */
const fromSrc = (file: string, target: string) => [file, target].map((path) => relative(join(ROOT, 'src'), path).split(sep).join('/')).join(' → ');

/** Folder → folder it references → the file edges that make that reference (`crm/present.ts → forms/schema.ts`). */
type FolderEdges = Map<string, Map<string, string[]>>;

/**
 * The folders' import graph from the files'. Edges inside a folder, from a test or from the root are
 * left out; edges to a root file are kept, under `(root)`, for the composition root's test to name.
 */
function folderEdges(graph: Graph): FolderEdges {
  const edges: FolderEdges = new Map();
  const src = join(ROOT, 'src');
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = folderOf(target) ?? (dirname(target) === src ? '(root)' : undefined);
      if (to === undefined || to === from) continue;
      const byTarget = edges.get(from) ?? new Map<string, string[]>();
      edges.set(from, byTarget);
      byTarget.set(to, [...(byTarget.get(to) ?? []), fromSrc(file, target)]);
    }
  }
  return edges;
}

/** `crm/present.ts → forms/schema.ts` or, when there are more, `… (+2 more)`. */
const evidence = (edges: FolderEdges, from: string, to: string) => {
  const files = [...(edges.get(from)?.get(to) ?? [])].sort();
  return files.length > 1 ? `${files[0]} (+${files.length - 1} more)` : `${files[0]}`;
};

/**
 * Every pair of folders that reference each other, `a ↔ b` with a file edge each way, then every longer
 * cycle (`a → b → c → a`, one per strongly connected component) of what is left once the pairs' edges
 * are set aside: with no pair left, that is the whole graph, so an empty answer means no cycle at all.
 */
function folderCycles(edges: FolderEdges): string[] {
  const folders = [...edges.keys()].sort();
  const pairs: string[] = [];
  const graph: Graph = new Map();
  for (const a of folders) {
    const targets = [...(edges.get(a)?.keys() ?? [])].filter((b) => b !== '(root)').sort();
    const mutual = targets.filter((b) => edges.get(b)?.has(a));
    for (const b of mutual.filter((b) => a < b)) pairs.push(`${a} ↔ ${b}: ${evidence(edges, a, b)}; ${evidence(edges, b, a)}`);
    graph.set(a, targets.filter((b) => !mutual.includes(b)));
  }
  const longer = findCycles(graph).map((cycle) => cycle.map((folder, i) => (i === 0 ? folder : `${folder} (${evidence(edges, cycle[i - 1]!, folder)})`)).join(' → '));
  return [...pairs, ...longer];
}

/** What the ground floors may import, besides themselves: nothing of ours above them. */
const FLOORS: Record<string, readonly string[]> = { lib: [], db: ['lib'], http: ['lib', 'db'], net: ['lib', 'http'] };

const readable = (cycle: string[]) => cycle.map((file) => relative(ROOT, file).split(sep).join('/')).join(' → ');

let parsed: { files: Map<string, string>; graph: Graph } | undefined;
/** The real tree, read and parsed once for every test below. */
function realTree(): { files: Map<string, string>; graph: Graph } {
  if (parsed) return parsed;
  const files = new Map(SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir))).map((file) => [file, readFileSync(file, 'utf8')] as const));
  parsed = { files, graph: importGraph(files) };
  return parsed;
}

describe('import cycles', () => {
  it('finds none in src/ or web/', () => {
    const { files, graph } = realTree();
    // Guards the walk itself: an empty or partial file list would find no cycle either.
    expect(files.size).toBeGreaterThan(300);
    expect(files.has(join(ROOT, 'src/invocation/tool-cache.ts'))).toBe(true);
    expect(files.has(join(ROOT, 'web/console/src/main.tsx'))).toBe(existsSync(join(ROOT, 'web/console/src/main.tsx')));
    // The resolution works on the real tree: both import styles (`.js` in src/, none in the console) give edges.
    expect(graph.get(join(ROOT, 'src/invocation/installations-service.ts'))).toContain(join(ROOT, 'src/invocation/repo.ts'));
    expect([...graph.entries()].some(([file, targets]) => file.includes(`${sep}console${sep}`) && targets.some((target) => target.endsWith('.tsx')))).toBe(true);

    expect(findCycles(graph).map(readable)).toEqual([]);
  });

  describe('between the folders of src/', () => {
    it('finds no pair of folders, nor a longer ring of them, that reference each other', () => {
      const edges = folderEdges(realTree().graph);
      // Guards the grouping: the folders are there, with edges between them.
      expect([...edges.keys()]).toEqual(expect.arrayContaining(['crm', 'db', 'forms', 'http', 'invocation', 'orgs', 'webhooks']));
      expect(edges.get('forms')?.has('crm')).toBe(true);
      expect(folderCycles(edges)).toEqual([]);
    });

    it('keeps the composition root on top: no folder imports a file directly in src/', () => {
      const edges = folderEdges(realTree().graph);
      const intoRoot = [...edges.values()].flatMap((byTarget) => byTarget.get('(root)') ?? []).sort();
      expect(intoRoot).toEqual([]);
    });

    it('keeps the ground floors low: lib/ imports nothing of ours outside lib/, db/ only lib/, http/ only lib/ and db/, net/ only lib/ and http/', () => {
      const { graph } = realTree();
      const above = Object.entries(FLOORS).flatMap(([floor, allowed]) =>
        [...graph.entries()]
          .filter(([file]) => folderOf(file) === floor)
          .flatMap(([file, targets]) => targets.filter((target) => folderOf(target) !== floor && !allowed.includes(folderOf(target) ?? '')).map((target) => fromSrc(file, target))),
      );
      expect(above.sort()).toEqual([]);
    });
  });

  describe('on a synthetic graph', () => {
    const at = (name: string) => join(ROOT, 'synthetic', name);

    it('reports each cycle once, as a path back to its first file, and ignores a graph without one', () => {
      const graph: Graph = new Map([
        [at('a.ts'), [at('b.ts'), at('d.ts')]],
        [at('b.ts'), [at('c.ts')]],
        [at('c.ts'), [at('a.ts')]],
        [at('d.ts'), [at('e.ts')]],
        [at('e.ts'), []],
        [at('f.ts'), [at('f.ts')]],
        [at('g.ts'), [at('h.ts')]],
        [at('h.ts'), [at('g.ts'), at('a.ts')]],
      ]);
      expect(findCycles(graph).map(readable)).toEqual([
        'synthetic/a.ts → synthetic/b.ts → synthetic/c.ts → synthetic/a.ts',
        'synthetic/f.ts → synthetic/f.ts',
        'synthetic/g.ts → synthetic/h.ts → synthetic/g.ts',
      ]);
      expect(findCycles(new Map([[at('a.ts'), [at('b.ts')]], [at('b.ts'), [at('c.ts')]], [at('c.ts'), []]]))).toEqual([]);
    });

    it('reports the shortest way back inside a larger component', () => {
      const graph: Graph = new Map([
        [at('a.ts'), [at('b.ts'), at('c.ts')]],
        [at('b.ts'), [at('d.ts')]],
        [at('c.ts'), [at('a.ts')]],
        [at('d.ts'), [at('a.ts')]],
      ]);
      expect(findCycles(graph).map(readable)).toEqual(['synthetic/a.ts → synthetic/c.ts → synthetic/a.ts']);
    });

    it('builds edges from type-only imports, re-exports, lazy imports and both specifier styles', () => {
      const files = new Map([
        // NodeNext style: `.js` names the .ts file; a type-only import is an edge.
        [at('service.ts'), `import { key } from './cache.js';\nexport interface Tool { name: string }`],
        [at('cache.ts'), `import type { Tool } from './service.js';\nexport const key = 'k';`],
        // Re-export and a lazy import.
        [at('index.ts'), `export * from './lazy.js';`],
        [at('lazy.ts'), `export const load = () => import('./index.js');`],
        // Bundler style: no extension, a .tsx file or a folder's index; `typeof import()` in a type.
        [at('page.tsx'), `import { Row } from './ui';\nexport const Page = () => <Row />;`],
        [at('ui/index.tsx'), `import type { Page } from '../page';\nexport const Row = () => null;`],
        [at('types.ts'), `export type Loader = typeof import('./types.js');\nimport 'node:fs';\nimport { x } from 'some-package';`],
        [at('alone.ts'), `import { key } from './cache.js';`],
      ]);
      const graph = importGraph(files);
      expect(graph.get(at('alone.ts'))).toEqual([at('cache.ts')]);
      expect(findCycles(graph).map(readable)).toEqual([
        'synthetic/cache.ts → synthetic/service.ts → synthetic/cache.ts',
        'synthetic/index.ts → synthetic/lazy.ts → synthetic/index.ts',
        'synthetic/page.tsx → synthetic/ui/index.tsx → synthetic/page.tsx',
        'synthetic/types.ts → synthetic/types.ts',
      ]);
    });

    const file = (name: string) => join(ROOT, 'src', name);

    it('groups files by folder: the root, tests and edges inside a folder make no folder edge', () => {
      const graph: Graph = new Map([
        [file('crm/present.ts'), [file('forms/schema.ts'), file('crm/schema.ts')]],
        [file('crm/schema.ts'), []],
        [file('forms/schema.ts'), []],
        [file('forms/service.ts'), [file('crm/present.ts'), file('crm/schema.ts')]],
        [file('orgs/service.ts'), [file('config.ts')]],
        [file('orgs/service.test.ts'), [file('app.ts'), file('crm/schema.ts')]],
        [file('app.ts'), [file('orgs/service.ts'), file('crm/present.ts')]],
        [file('config.ts'), []],
      ]);
      const edges = folderEdges(graph);
      expect([...edges.keys()].sort()).toEqual(['crm', 'forms', 'orgs']);
      expect(edges.get('forms')?.get('crm')).toEqual(['forms/service.ts → crm/present.ts', 'forms/service.ts → crm/schema.ts']);
      expect(edges.get('orgs')?.get('(root)')).toEqual(['orgs/service.ts → config.ts']);
      expect(folderCycles(edges)).toEqual(['crm ↔ forms: crm/present.ts → forms/schema.ts; forms/service.ts → crm/present.ts (+1 more)']);
    });

    it('names every pair, then a longer ring through three folders', () => {
      const graph: Graph = new Map([
        [file('a/x.ts'), [file('b/x.ts')]],
        [file('b/x.ts'), [file('a/x.ts'), file('c/x.ts')]],
        [file('c/x.ts'), [file('d/x.ts')]],
        [file('d/x.ts'), [file('e/x.ts')]],
        [file('e/x.ts'), [file('c/y.ts')]],
        [file('c/y.ts'), []],
      ]);
      expect(folderCycles(folderEdges(graph))).toEqual([
        'a ↔ b: a/x.ts → b/x.ts; b/x.ts → a/x.ts',
        'c → d (c/x.ts → d/x.ts) → e (d/x.ts → e/x.ts) → c (e/x.ts → c/y.ts)',
      ]);
      // A ring through one side of a pair is named once the pair is undone (then the whole graph is searched).
      graph.set(file('b/x.ts'), [file('c/x.ts')]);
      graph.set(file('e/x.ts'), [file('a/x.ts')]);
      expect(folderCycles(folderEdges(graph))).toEqual(['a → b (a/x.ts → b/x.ts) → c (b/x.ts → c/x.ts) → d (c/x.ts → d/x.ts) → e (d/x.ts → e/x.ts) → a (e/x.ts → a/x.ts)']);
    });
  });
});
