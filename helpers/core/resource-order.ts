/**
 * The reports' order of the resources, always the same: a smoke pass over every operation, then
 * the business, customers, and last the team members (whose create/delete probes could change
 * data on a broken target); the frame, judged over all of them at the run's end, after them.
 */
const RESOURCE_ORDER = ['operations', 'business', 'customers', 'team-members', 'frame', 'exploration'];

/** A resource's place in that order; the reports list checks so, however the lanes interleaved. */
export function suiteRank(resource: string): number {
  const i = RESOURCE_ORDER.indexOf(resource);
  return i === -1 ? RESOURCE_ORDER.length : i;
}
