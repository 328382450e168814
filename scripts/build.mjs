/**
 * Compiles the command's TypeScript (helpers/, suites/, reference/) to JavaScript in dist/, file
 * for file, so that a run starts without transpiling, then derives dist/data from the spec
 * (helpers/contract/precompile.ts). Run by `npm run build` and on `prepare` (npm ci / npm
 * install; with --types, the typed API's declarations too), and by bin/ when dist/ is missing or older than the sources.
 * Plain JavaScript: it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const distDir = join(root, 'dist');
const SOURCES = ['helpers', 'suites', 'reference'];
// Lists the sources it was built from: a source added or removed makes the build stale too.
const STAMP = join(distDir, '.built-from');
// dist/data is derived from these too: an edited spec is derived again at the next start.
const DATA_FILES = ['spec/openapi.yaml', 'spec/requirements.yaml'];

function sources() {
  return SOURCES.flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
      .map((e) => relative(root, join(e.parentPath, e.name))),
  ).sort();
}

/** True when dist/ is missing, or a source was changed, added or removed since it was built. */
export function isStale() {
  let stamp;
  try {
    stamp = { text: readFileSync(STAMP, 'utf8'), time: statSync(STAMP).mtimeMs };
  } catch {
    return true;
  }
  const files = sources();
  return stamp.text !== files.join('\n') || [...files, ...DATA_FILES].some((f) => statSync(join(root, f)).mtimeMs > stamp.time);
}

// Relative imports name the .ts files (allowImportingTsExtensions); the compiled ones are .js.
const TS_IMPORT = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+?)\.ts\2/g;

/** Writes a file whole or not at all: runs started at the same time may build at the same time. */
function writeAtomically(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

export async function build() {
  const { transform } = await import('esbuild');
  const files = sources();
  const wanted = new Set(files.map((f) => f.replace(/\.ts$/, '.js')));
  await Promise.all(
    files.map(async (file) => {
      const { code } = await transform(readFileSync(join(root, file), 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: file,
      });
      writeAtomically(join(distDir, file.replace(/\.ts$/, '.js')), code.replace(TS_IMPORT, '$1$2$3.js$2'));
    }),
  );
  // A compiled file whose source is gone would still run (a suite, above all): remove it.
  for (const dir of SOURCES) {
    for (const e of readdirSync(join(distDir, dir), { recursive: true, withFileTypes: true })) {
      const file = relative(distDir, join(e.parentPath, e.name));
      if (e.isFile() && file.endsWith('.js') && !wanted.has(file)) rmSync(join(distDir, file), { force: true });
    }
  }
  await precompile();
  writeAtomically(STAMP, files.join('\n'));
}

/**
 * dist/data: the spec, catalog and response validators, derived once here instead of at every
 * start. A spec that cannot be derived (invalid, say) leaves no data: the run then reads it
 * itself and reports what is wrong with it, as it would without a build.
 */
async function precompile() {
  try {
    const { writePrecompiled } = await import(pathToFileURL(join(distDir, 'helpers/contract/precompile.js')).href);
    await writePrecompiled();
  } catch {
    rmSync(join(distDir, 'data'), { recursive: true, force: true });
  }
}

/**
 * types/: the typed API's declarations (tsconfig.types.json), for a packed tarball and for
 * `npm install` from git, both of which run `prepare`. Written where TypeScript is installed (a development
 * install); an install without it (`npm ci --omit=dev`, the Action) runs the command, which needs
 * no declarations.
 */
async function buildTypes() {
  let tscPath;
  try {
    tscPath = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return;
  }
  const ran = spawnSync(process.execPath, [tscPath, '-p', join(root, 'tsconfig.types.json')], { stdio: 'inherit' });
  if (ran.status !== 0) throw new Error('the declarations of the typed API (types/) could not be built');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await build();
  if (process.argv.includes('--types')) await buildTypes();
}
