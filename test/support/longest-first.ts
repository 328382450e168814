import { basename, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run the command most start first, the long and the waiting ones taking turns:
 * with no results cached (a fresh clone, CI), vitest orders files by size, which put the four
 * fault shares last, where the last of them ran alone for ~30 s (172 s in all, against ~145 s
 * with a cache). A file that failed last time still goes first; the rest keep vitest's order
 * (past durations, else size). test/test-script.test.ts holds the names to files that exist.
 */
export const LONGEST_FIRST = [
  ...['faults', 'safety', 'faults-2', 'business', 'faults-3', 'overlapping-runs', 'faults-4', 'network', 'run-end', 'recovery', 'lanes-side-by-side', 'reads-back-in-time', 'variations', 'variations-2'],
  // Then the rest of those that take 7 s or more, longest first: a 15 s file that starts last ends last.
  ...['cli', 'http-safety', 'explore', 'readme', 'certification', 'json-server', 'har-complete', 'rerun', 'examples', 'release', 'own-verdict', 'early-worker', 'customers-team-members', 'mutation'],
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const failed = (spec: TestSpecification) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`)?.failed;
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(basename(spec.moduleId).replace(/\.test\.ts$/, ''));
      return failed(spec) ? -1 : at < 0 ? LONGEST_FIRST.length : at;
    };
    const sorted = await super.sort(files);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
