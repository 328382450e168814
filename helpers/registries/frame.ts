import { Blocked, type Registry } from '../checks/definition.ts';
import { Interference, anotherRunAt } from '../safety/interference.ts';
import { describeDifference, Frame, FRAME_CHECK, frameFindings } from '../safety/frame.ts';
import { Journal } from '../safety/journal.ts';
import { leasePlace } from '../safety/lease.ts';
import { ApiClient } from '../http/client.ts';
import type { Spec } from '../contract/spec.ts';
import type { TargetConfig } from '../config/target.ts';

/**
 * The frame (helpers/safety/frame.ts), judged once at the run's end, after every lane: what the
 * readings at each lane's end and this last one found changed that no write of the run addressed.
 * A run-level check: it reads every resource, and belongs to no lane.
 */
export function frameChecks(spec: Spec, target: TargetConfig): Registry<Frame | undefined> {
  return {
    entries: [
      {
        id: 'WRITE-FRAME',
        title: FRAME_CHECK.title,
        // A --read-only run writes nothing and takes no baseline: nothing here for it to judge.
        changesData: true,
        async run(frame, run) {
          if (!frame) return run.notApplicable('the run took no baseline of the target to compare with (it reads one only before its first write)');
          await frame.read("the suites' end");
          const { differences, problems, compared } = frameFindings(new Journal(target.journalFile!).read());
          if (problems.length) run.note(`not compared, as not read whole: ${problems.join('; ')}`);
          const foreign = differences.find((d) => d.by);
          if (foreign) throw new Interference(foreign.by!, describeDifference(foreign));
          if (!differences.length) {
            if (!compared.length) throw new Blocked('the suite', `nothing could be read whole both before the run and at its end: ${problems.join('; ')}`);
            return;
          }
          // Another run going on the target could have made them too: then nothing here is judged.
          const client = new ApiClient(target);
          try {
            const other = await anotherRunAt(client, leasePlace(spec, target), target.runId, [], 'the records');
            if (other) throw other;
          } finally {
            await client.close();
          }
          throw new Error(`records changed that no write of the run addressed: ${differences.map((d) => describeDifference(d)).join('; ')}`);
        },
      },
    ],
    open: () => Frame.of(spec, target),
    close: async (frame) => frame?.close(),
  };
}
