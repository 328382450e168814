/** How a check ended: what every report, the verdict and known deviations speak of. */
export type Outcome = 'passed' | 'failed' | 'warning' | 'not-applicable' | 'blocked' | 'skipped';
