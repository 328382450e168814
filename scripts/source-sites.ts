/**
 * Where checks and faults are declared in the source, read with the TypeScript parser (never
 * run): each check in helpers/registries/ with the id it is given, each fault in reference/faults/
 * with its name. Only for the `file:line` of spec/coverage.md: the checks themselves come from the
 * registries. An id or name built from a template (`BUS-UPDATE-PARTIAL:${name}`) is a pattern that
 * matches every id the run gives it, so the ids a run reports can be traced back to a line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { projectRoot } from '../helpers/core/paths.ts';
import { escapeRegExp } from '../helpers/core/selection.ts';

export interface SourceSite {
  /** Path from the project root, e.g. helpers/registries/business.ts. */
  file: string;
  line: number;
  /** The literal parts of the id or name as written, in order: what is filled in at run time goes between them. */
  parts: string[];
}

export const registriesDir = join(projectRoot, 'helpers', 'registries');
export const faultsDir = join(projectRoot, 'reference', 'faults');

const tsFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.generated.ts')).sort().map((f) => join(dir, f));

/**
 * Every check the registries declare: an object with an id, a title and its run, or the { id, title }
 * given to a function named …check() (customerCheck()) with the body beside it.
 */
export function checkSites(dir = registriesDir): SourceSite[] {
  return tsFiles(dir).flatMap((file) =>
    objectsIn(file, (object, parent) => {
      if (!has(object, 'title')) return undefined;
      if (!has(object, 'run') && !(ts.isCallExpression(parent) && /check$/i.test(calleeName(parent)))) return undefined;
      return property(object, 'id');
    }),
  );
}

/** Every fault declared in reference/faults/: objects with a name and a kills list. */
export function faultSites(dir = faultsDir): SourceSite[] {
  return tsFiles(dir).flatMap((file) => objectsIn(file, (object) => (has(object, 'kills') ? property(object, 'name') : undefined)));
}

/**
 * The sites an id comes from: those whose pattern matches it, the most literal first (so
 * `BUS-AUTH-NO-ECHO:${op}:${case}` wins over `${requirement}:${op}`); several only on a tie.
 */
export function sitesOf(id: string, sites: SourceSite[]): SourceSite[] {
  const matching = sites.filter((s) => patternMatches(s.parts, id));
  const literal = (s: SourceSite) => s.parts.join('').length;
  const best = Math.max(...matching.map(literal));
  return matching.filter((s) => literal(s) === best);
}

function patternMatches(parts: string[], id: string): boolean {
  const source = parts.map(escapeRegExp).join('.*');
  return new RegExp(`^${source}$`).test(id);
}

function calleeName(call: ts.CallExpression): string {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return '';
}

function has(object: ts.ObjectLiteralExpression, name: string): boolean {
  return object.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name);
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of object.properties) {
    if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === name) return p.initializer;
    if (ts.isShorthandPropertyAssignment(p) && p.name.text === name) return p.name;
  }
  return undefined;
}

/** Sites of the object literals in a file for which `pick` names the expression holding the id. */
function objectsIn(path: string, pick: (object: ts.ObjectLiteralExpression, parent: ts.Node) => ts.Expression | undefined): SourceSite[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const file = relative(projectRoot, path);
  const sites: SourceSite[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const expression = pick(node, node.parent);
      if (expression) {
        const parts = partsOf(expression, source);
        const line = source.getLineAndCharacterOfPosition(expression.getStart(source)).line + 1;
        sites.push({ file, line, parts });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** The literal parts of a string or template expression; a variable is followed to its initializer. */
function partsOf(expression: ts.Expression, source: ts.SourceFile): string[] {
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return [expression.text];
  if (ts.isTemplateExpression(expression)) return [expression.head.text, ...expression.templateSpans.map((s) => s.literal.text)];
  if (ts.isIdentifier(expression)) {
    const initializer = initializerOf(expression.text, source);
    if (initializer) return partsOf(initializer, source);
  }
  const { line } = source.getLineAndCharacterOfPosition(expression.getStart(source));
  throw new Error(`${relative(projectRoot, source.fileName)}:${line + 1}: write the id as a string or template literal (or a const holding one), not ${expression.getText(source)}`);
}

function initializerOf(name: string, source: ts.SourceFile): ts.Expression | undefined {
  let found: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name && node.initializer) found ??= node.initializer;
    if (!found) ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
