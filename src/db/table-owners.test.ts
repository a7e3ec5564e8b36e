import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { TABLE_OWNERS, type TableOwner } from './table-owners.js';

/*
 * Static, not dynamic: the TypeScript compiler's syntax tree of every source file shows every write,
 * also those no test runs (PostgreSQL-only statements, error branches), says which file (so which
 * feature) wrote it, and needs no database. A query log while tests run would see only the paths
 * exercised and could not tell which feature issued a statement. The price: a write must name its
 * table literally (a Kysely call with a string, raw SQL with the name in its text); a name computed
 * at run time is refused here, since its owner could not be checked.
 */

const SRC = join(import.meta.dirname, '..');
const KYSELY_WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
/** A write in raw SQL and the name after it, if the text has one (it may end there, before `${…}`). */
const SQL_WRITE = /\b(insert\s+into|update|delete\s+from|merge\s+into|replace\s+into)(?:\s+only)?(?:\s+"?([A-Za-z_]\w*)"?|\s*$)/gi;
const isTable = (name: string): name is keyof typeof TABLE_OWNERS => Object.hasOwn(TABLE_OWNERS, name);

interface Write {
  /** Undefined: the table is not named in the source. */
  table: string | undefined;
  where: string;
}

/** Every table write in one file: Kysely's write builders, `sql` templates, and `….raw('…')` SQL text. */
function writesIn(fileName: string, text: string): Write[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const writes: Write[] = [];
  const at = (node: ts.Node) => `${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

  const fromSqlText = (node: ts.Node, chunks: string[]) => {
    for (const chunk of chunks) {
      for (const match of chunk.matchAll(SQL_WRITE)) {
        const name = match[2];
        // `on conflict do update set`, `for update skip locked`: "update" followed by no table.
        if (name === undefined) writes.push({ table: undefined, where: at(node) });
        else if (isTable(name)) writes.push({ table: name, where: at(node) });
      }
    }
  };
  const templateChunks = (template: ts.TemplateLiteral): string[] =>
    ts.isNoSubstitutionTemplateLiteral(template) ? [template.text] : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)];

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const [first] = node.arguments;
      if (KYSELY_WRITES.has(method)) {
        const names = first && ts.isArrayLiteralExpression(first) ? [...first.elements] : [first];
        for (const name of names) {
          const table = name && ts.isStringLiteralLike(name) ? name.text.trim().split(/\s+/)[0] : undefined;
          writes.push({ table, where: at(node) });
        }
      } else if (method === 'raw' && first) {
        if (ts.isStringLiteral(first)) fromSqlText(node, [first.text]);
        else if (ts.isTemplateLiteral(first)) fromSqlText(node, templateChunks(first));
      }
    }
    if (ts.isTaggedTemplateExpression(node) && /(^|\.)sql$/.test(node.tag.getText(source))) {
      fromSqlText(node, templateChunks(node.template));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return writes;
}

/** The feature a file belongs to (its folder under src/), if that feature owns tables. */
function ownerOf(path: string): TableOwner | undefined {
  const folder = path.split('/')[0]!;
  return Object.values(TABLE_OWNERS).includes(folder as TableOwner) ? (folder as TableOwner) : undefined;
}

/** What breaks the rule in one file: writes to another feature's table, or to a table not named. */
function violations(path: string, text: string): string[] {
  const owner = ownerOf(path);
  const writer = path.includes('/') ? `${path.split('/')[0]}/` : path;
  return writesIn(path, text).flatMap(({ table, where }) => {
    if (table === undefined) return [`${where}: a write whose table is not named literally`];
    if (!isTable(table)) return [`${where}: writes ${table}, a table db/table-owners.ts does not know`];
    const tableOwner = TABLE_OWNERS[table];
    return tableOwner === owner ? [] : [`${where}: ${writer} writes ${table}, owned by ${tableOwner}/`];
  });
}

/** Every non-test source file under src/, as paths relative to src/ with forward slashes. */
function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .map((file) => relative(SRC, join(SRC, file)).split(sep).join('/'))
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file))
    // Migrations shape every table once, under the migrator; they belong to no feature.
    .filter((file) => !file.startsWith('db/migrations/'));
}

describe('table ownership: a feature writes only its own tables', () => {
  const files = sourceFiles().map((path) => ({ path, text: readFileSync(join(SRC, path), 'utf8') }));

  it('every write in src/ is to a table its feature owns', () => {
    expect(files.flatMap(({ path, text }) => violations(path, text))).toEqual([]);
  });

  it('sees the writes it checks (a scanner that found nothing would pass the test above)', () => {
    const found = files.flatMap(({ path, text }) => writesIn(path, text).map((write) => `${path} ${write.table}`));
    expect(found.length).toBeGreaterThan(80);
    expect(found).toContain('operators/repo.ts users');
    expect(found).toContain('invocation/repo.ts tool_calls'); // inside a query template
    expect(found).toContain('crm/new-lead-ctes.ts contacts'); // raw SQL
    expect(found).toContain('forms/new-lead-statement.ts submissions');
  });

  it('catches a write to another feature\'s table, in Kysely and in raw SQL, and a table not named', () => {
    const bad = `
      export const repo = (db) => ({
        insertUser: (row) => db.insertInto('users').values(row).execute(),
        dropKeys: () => db.deleteFrom(['agent_keys', 'contacts as c']).execute(),
        touch: (table) => db.updateTable(table).set({}).execute(),
        raw: (id) => sql\`update "submissions" set ip = null where id = \${id}\`.execute(db),
        dynamic: (name) => sql\`delete from \${sql.table(name)}\`.execute(db),
        text: () => db.executeQuery(CompiledQuery.raw('insert into notes (id) values (1)')),
      });`;
    expect(violations('orgs/repo.ts', bad)).toEqual([
      'orgs/repo.ts:3: orgs/ writes users, owned by operators/',
      'orgs/repo.ts:4: orgs/ writes contacts, owned by crm/', // agent_keys, beside it, is the orgs' own
      'orgs/repo.ts:5: a write whose table is not named literally',
      'orgs/repo.ts:6: orgs/ writes submissions, owned by forms/',
      'orgs/repo.ts:7: a write whose table is not named literally',
      'orgs/repo.ts:8: orgs/ writes notes, owned by crm/',
    ]);
    expect(violations('catalog/repo.ts', `db.updateTable('tools').set(changes)`)).toEqual(['catalog/repo.ts:1: catalog/ writes tools, owned by tools/']);
    expect(violations('cli.ts', `db.insertInto('orgs').values(row)`)).toEqual(['cli.ts:1: cli.ts writes orgs, owned by orgs/']);
  });

  it('lets a feature read any table and write its own', () => {
    const good = `
      const upsert = (db, row) => db.insertInto('contacts').values(row).onConflict((oc) => oc.doNothing());
      const merged = mergeInto(repo, existing, input); // a function of that name, not Kysely's
      const read = (db) => db.selectFrom('users').innerJoin('orgs', 'orgs.id', 'users.org_id').selectAll().execute();
      const claim = (db) => sql\`select id from forms for update skip locked\`.execute(db);
      const cte = sql\`insert into notes (id) select 1 on conflict (id) do update set body = excluded.body\`;
      const note = 'Could not update contacts'; // prose, not SQL`;
    expect(violations('crm/repo.ts', good)).toEqual([]);
  });

  it('knows an owner for every table the migrations create', () => {
    const migrations = readdirSync(join(SRC, 'db/migrations')).map((file) => readFileSync(join(SRC, 'db/migrations', file), 'utf8'));
    const created = migrations.flatMap((text) => [...text.matchAll(/createTable\(\s*'(\w+)'/g)].map((match) => match[1]!));
    expect(created.length).toBeGreaterThan(0);
    expect(created.filter((table) => !isTable(table))).toEqual([]);
  });

  it('docs/ARCHITECTURE.md shows the same table → owner map', () => {
    const doc = readFileSync(join(SRC, '../docs/ARCHITECTURE.md'), 'utf8');
    const documented: Record<string, string> = {};
    for (const [, owner, tables] of doc.matchAll(/^\| `([\w-]+)\/` \| (.+?) \|/gm)) {
      for (const [, table] of tables!.matchAll(/`(\w+)`/g)) documented[table!] = owner!;
    }
    expect(documented).toEqual({ ...TABLE_OWNERS });
  });
});
