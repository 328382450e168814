import { build, isStale } from '../scripts/build.mjs';

/** Global set-up: the tests run the compiled command (dist/), so it must be built from these sources. */
export default async function setup(): Promise<void> {
  if (isStale()) await build();
}
