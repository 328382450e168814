/**
 * action.yml run as a GitHub runner runs a composite action, on a runner's directories: the
 * workspace (`_work/<repo>/<repo>`), RUNNER_TEMP (`_work/_temp`) and the Action's checkout under
 * `_work/_actions/OWNER/scheduling-conformance/<ref>` (github.action_path). `${{ }}` expressions
 * and `if:` conditions are evaluated over inputs (with their defaults), github, runner and the
 * steps' outputs; each step gets fresh GITHUB_OUTPUT, GITHUB_PATH and GITHUB_ENV files, applied
 * to the steps after it as the runner applies them. `uses:` steps are not skipped: each action the
 * Action uses has a model of what it checks before doing anything (USES); one without a model
 * fails the run, as would one whose inputs the real action refuses.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface Runner {
  root: string;
  workspace: string;
  temp: string;
  actionPath: string;
}

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}

export interface ActionYml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export interface StepRun {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  code?: number;
  stdout: string;
  stderr: string;
}

export interface Upload {
  name: string;
  path: string;
  files: string[];
}

export interface ActionRun {
  outputs: Record<string, string>;
  steps: StepRun[];
  uploads: Upload[];
  /** PATH as the job's next step sees it: what the Action left on it. */
  path: string;
  summary: string;
  failed: boolean;
}

/** A runner's directories, the Action checked out at `ref` from the files of `source`. */
export function layOutRunner(scratch: string, source: string, files: string[], ref = 'v0.1.0'): Runner {
  const root = mkdtempSync(join(scratch, 'runner-'));
  const runner: Runner = {
    root,
    workspace: join(root, '_work/implementation/implementation'),
    temp: join(root, '_work/_temp'),
    actionPath: join(root, '_work/_actions/OWNER/scheduling-conformance', ref),
  };
  for (const dir of [runner.workspace, runner.temp]) mkdirSync(dir, { recursive: true });
  for (const file of files) {
    mkdirSync(dirname(join(runner.actionPath, file)), { recursive: true });
    writeFileSync(join(runner.actionPath, file), readFileSync(join(source, file)));
  }
  return runner;
}

export const readAction = (file: string) => parseYaml(readFileSync(file, 'utf8')) as ActionYml;

function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** `name=value` lines and `name<<DELIM` blocks, as the runner reads GITHUB_OUTPUT and GITHUB_ENV. */
function keyValues(file: string): Record<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      out[heredoc[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i].includes('=')) {
      out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1);
    }
  }
  return out;
}

type Context = (path: string) => unknown;
type Status = { failed: boolean; cancelled: boolean };

/** A GitHub expression as JavaScript over `ctx` (context paths) and `fn` (status functions). */
function evaluate(expression: string, ctx: Context, status: Status): unknown {
  const tokens = expression.match(/'(?:[^']|'')*'|[A-Za-z_][\w.-]*\(?|==|!=|&&|\|\||[!()]|\d+|\S/g) ?? [];
  const js = tokens.map((t) => {
    if (t.startsWith("'")) return JSON.stringify(t.slice(1, -1).replace(/''/g, "'"));
    if (t.endsWith('(')) {
      const name = t.slice(0, -1);
      if (!['always', 'success', 'failure', 'cancelled'].includes(name)) throw new Error(`expression function ${name}() is not modelled`);
      return `fn.${name}(`;
    }
    if (/^[A-Za-z_]/.test(t)) return t === 'true' || t === 'false' ? t : `ctx(${JSON.stringify(t)})`;
    if (t === '==') return '===';
    if (t === '!=') return '!==';
    if (/^(&&|\|\||[!()]|\d+)$/.test(t)) return t;
    throw new Error(`expression token ${t} is not modelled`);
  }).join(' ');
  const fn = { always: () => true, success: () => !status.failed && !status.cancelled, failure: () => status.failed, cancelled: () => status.cancelled };
  return new Function('ctx', 'fn', `return (${js});`)(ctx, fn);
}

/** Every `${{ }}` in a text, replaced by its value. */
const expand = (text: string, ctx: Context, status: Status) => text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, e: string) => String(evaluate(e, ctx, status) ?? ''));

/** Files under a folder, relative to it. */
const filesUnder = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();

/**
 * What each action the Action uses checks, and does to the job, before its real work: a step
 * the real action would fail fails here.
 */
const USES: Record<string, (w: Record<string, string>, runner: Runner, job: { addPath(dir: string): void; uploads: Upload[] }) => string | undefined> = {
  'actions/setup-node@v4': (w, runner, job) => {
    if (!w['node-version'] && !w['node-version-file']) return 'setup-node: no node-version';
    if (w.cache) {
      // Its cache key hashes the dependency files with the runner's hashFiles, which only sees files inside GITHUB_WORKSPACE.
      const patterns = (w['cache-dependency-path'] || 'package-lock.json').split('\n').filter(Boolean);
      const inside = patterns.map((p) => resolve(runner.workspace, p)).filter((p) => existsSync(p) && !relative(runner.workspace, p).startsWith('..'));
      if (!inside.length) return 'setup-node: Some specified paths were not resolved, unable to cache dependencies.';
    }
    // It installs Node and prepends it to PATH for the rest of the job: this Node stands in for it.
    job.addPath(dirname(process.execPath));
    return undefined;
  },
  'actions/upload-artifact@v4': (w, runner, job) => {
    if (!w.name) return 'upload-artifact: no name';
    if (!w.path) return 'upload-artifact: Input required and not supplied: path';
    const path = isAbsolute(w.path) ? w.path : join(runner.workspace, w.path);
    const files = existsSync(path) ? (statSync(path).isDirectory() ? filesUnder(path) : [relative(dirname(path), path)]) : [];
    if (!files.length && w['if-no-files-found'] === 'error') return `upload-artifact: No files were found with the provided path: ${w.path}`;
    if (job.uploads.some((u) => u.name === w.name)) return `upload-artifact: an artifact named ${w.name} was already uploaded`;
    job.uploads.push({ name: w.name, path, files });
    return undefined;
  },
};

/**
 * Runs the Action's steps with these inputs. `path` is the job's PATH before the Action (the
 * caller's Node first); `cancelAfter` cancels the job once that step (by id) has run, as a
 * cancelled workflow does to a running job.
 */
export async function runAction(action: ActionYml, runner: Runner, inputs: Record<string, string>, options: { path?: string; env?: Record<string, string>; cancelAfter?: string } = {}): Promise<ActionRun> {
  for (const name of Object.keys(inputs)) if (!(name in action.inputs)) throw new Error(`input ${name} is not declared in action.yml`);
  const summary = join(runner.temp, `step-summary-${Date.now()}.md`);
  writeFileSync(summary, '');
  let path = options.path ?? process.env.PATH ?? '';
  const jobEnv: Record<string, string> = {};
  const stepOutputs: Record<string, Record<string, string>> = {};
  const status: Status = { failed: false, cancelled: false };
  const uploads: Upload[] = [];
  const ctx: Context = (p) => {
    const [head, ...rest] = p.split('.');
    if (head === 'inputs') {
      if (!(rest[0] in action.inputs)) throw new Error(`action.yml uses undeclared input ${rest[0]}`);
      return inputs[rest[0]] ?? action.inputs[rest[0]].default ?? '';
    }
    if (head === 'github' && rest[0] === 'action_path') return runner.actionPath;
    if (head === 'github' && rest[0] === 'workspace') return runner.workspace;
    if (head === 'github' && rest[0] === 'job') return 'conformance';
    if (head === 'runner' && rest[0] === 'temp') return runner.temp;
    if (head === 'steps' && rest[1] === 'outputs') return stepOutputs[rest[0]]?.[rest[2]] ?? '';
    throw new Error(`expression context ${p} is not modelled`);
  };
  const steps: StepRun[] = [];
  for (const [i, step] of action.runs.steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${i + 1}`;
    if (!evaluate(step.if ?? 'success()', ctx, status)) {
      steps.push({ name, outcome: 'skipped', stdout: '', stderr: '' });
      continue;
    }
    const files = Object.fromEntries(['output', 'path', 'env'].map((k) => [k, join(runner.temp, `${k}-${i}-${Date.now()}`)]));
    for (const f of Object.values(files)) writeFileSync(f, '');
    let result: { code: number; stdout: string; stderr: string };
    if (step.uses) {
      const model = USES[step.uses];
      if (!model) throw new Error(`${step.uses}: no model of this action (test/support/action-runner.ts)`);
      const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expand(String(v), ctx, status)]));
      const problem = model(w, runner, { addPath: (dir) => writeFileSync(files.path, `${dir}\n`, { flag: 'a' }), uploads });
      result = { code: problem ? 1 : 0, stdout: '', stderr: problem ?? '' };
    } else {
      if (step.shell !== 'bash') throw new Error(`${name}: shell ${step.shell} is not modelled`);
      const script = join(runner.temp, `step-${i}.sh`);
      writeFileSync(script, expand(step.run ?? '', ctx, status));
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), ctx, status)]));
      result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], runner.workspace, {
        HOME: process.env.HOME ?? '', CI: 'true', GITHUB_ACTIONS: 'true', ...options.env, ...jobEnv, ...env, PATH: path,
        GITHUB_WORKSPACE: runner.workspace, RUNNER_TEMP: runner.temp, GITHUB_ACTION_PATH: runner.actionPath, GITHUB_JOB: 'conformance',
        GITHUB_OUTPUT: files.output, GITHUB_PATH: files.path, GITHUB_ENV: files.env, GITHUB_STEP_SUMMARY: summary,
      });
    }
    if (step.id) stepOutputs[step.id] = keyValues(files.output);
    Object.assign(jobEnv, keyValues(files.env));
    const added = readFileSync(files.path, 'utf8').split('\n').filter(Boolean);
    if (added.length) path = [...added.reverse(), path].join(':');
    steps.push({ name, outcome: result.code === 0 ? 'success' : 'failure', code: result.code, stdout: result.stdout, stderr: result.stderr });
    if (result.code !== 0) status.failed = true;
    if (options.cancelAfter && step.id === options.cancelAfter) status.cancelled = true;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, expand(o.value, ctx, status)]));
  return { outputs, steps, uploads, path, summary: readFileSync(summary, 'utf8'), failed: status.failed };
}
