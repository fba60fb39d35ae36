/**
 * The API report: every entry point's exports, values and types alike, with the kind of each, as
 * the TypeScript compiler sees them. An export added, removed or changed in kind (a class that
 * becomes an interface, say) fails this test until `api/exports.json` is regenerated on purpose:
 *
 *     TANDEM_UPDATE_API_REPORT=1 npx vitest run test/api/api-report.test.ts
 *
 * so that a change of the public surface is always a visible line in a diff, never an accident of
 * a re-export.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REPORT = `${ROOT}api/exports.json`;

/** The package's entry points (the `exports` map of package.json) and their source files. */
const ENTRY_POINTS: Readonly<Record<string, string>> = {
  tandem: 'src/index.ts',
  'tandem/codecs': 'src/codecs.ts',
  'tandem/server': 'src/server.ts',
  'tandem/server/grpc': 'src/server-grpc.ts',
  'tandem/server/compat': 'src/server-compat.ts',
  'tandem/client': 'src/client.ts',
  'tandem/check': 'src/check.ts',
  'tandem/stores': 'src/stores.ts',
  'tandem/stores/sqlite': 'src/stores-sqlite.ts',
  'tandem/stores/postgres': 'src/stores-postgres.ts',
  'tandem/otel': 'src/otel.ts',
};

function kindOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const flags = target.flags;
  const kinds: string[] = [];
  if (flags & ts.SymbolFlags.Class) kinds.push('class');
  else if (flags & ts.SymbolFlags.Function) kinds.push('function');
  else if (flags & ts.SymbolFlags.Enum) kinds.push('enum');
  else if (flags & ts.SymbolFlags.Variable) kinds.push('const');
  if (flags & ts.SymbolFlags.Interface) kinds.push('interface');
  if (flags & ts.SymbolFlags.TypeAlias) kinds.push('type');
  if (flags & ts.SymbolFlags.Module) kinds.push('namespace');
  return kinds.join(' + ') || 'unknown';
}

function currentReport(): Record<string, Record<string, string>> {
  const files = Object.values(ENTRY_POINTS).map((file) => `${ROOT}${file}`);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}tsconfig.build.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  const program = ts.createProgram(files, { ...parsed?.options, noEmit: true });
  const checker = program.getTypeChecker();
  const report: Record<string, Record<string, string>> = {};
  for (const [entry, file] of Object.entries(ENTRY_POINTS)) {
    const source = program.getSourceFile(`${ROOT}${file}`);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) throw new Error(`${file} has no module symbol`);
    const exports = checker
      .getExportsOfModule(moduleSymbol)
      .map((symbol) => [symbol.getName(), kindOf(symbol, checker)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    report[entry] = Object.fromEntries(exports);
  }
  return report;
}

describe('API report', () => {
  it('every entry point exports exactly what api/exports.json lists', () => {
    const report = currentReport();
    const text = `${JSON.stringify(report, null, 2)}\n`;
    if (process.env.TANDEM_UPDATE_API_REPORT === '1') writeFileSync(REPORT, text);
    expect(JSON.parse(readFileSync(REPORT, 'utf8'))).toEqual(report);
  }, 60_000);

  it('covers every entry point of package.json', () => {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      exports: Record<string, string | { default?: string }>;
    };
    const fromPackage = Object.entries(pkg.exports)
      .filter(([subpath]) => subpath !== './package.json')
      .map(([subpath, target]) => {
        const built = typeof target === 'string' ? target : (target.default ?? '');
        const source = built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
        return [subpath === '.' ? 'tandem' : `tandem/${subpath.slice(2)}`, source] as const;
      });
    expect(Object.fromEntries(fromPackage)).toEqual(ENTRY_POINTS);
  });

  it('the runtime exports of the built entry points match the report', async () => {
    const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    for (const [entry, file] of Object.entries(ENTRY_POINTS)) {
      const built = file.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
      const module = (await import(`${ROOT}${built}`)) as Record<string, unknown>;
      const values = Object.entries(report[entry] ?? {})
        .filter(([, kind]) => /class|function|enum|const/.test(kind))
        .map(([name]) => name)
        .sort();
      expect(Object.keys(module).sort(), entry).toEqual(values);
    }
  });
});
