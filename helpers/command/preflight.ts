import { ApiClient, NoAnswerError } from '../http/client.ts';
import { TargetError, UsageError } from './errors.ts';
import { loadSpec } from '../contract/spec.ts';
import { businessFieldName, businessRecordIn, isRecord } from '../resources/record-shapes.ts';
import type { TargetConfig } from '../config/target.ts';

/**
 * One request before the suites: a target that cannot be reached, or that refuses the key,
 * ends the run at once with one clear line instead of a screen of failed checks; so does a
 * retrieval whose record could sit under two properties, or not under the configured one.
 */
export async function preflight(target: TargetConfig): Promise<void> {
  const client = new ApiClient(target);
  try {
    const answer = await client.send({ method: 'GET', path: '/api/v1/business' });
    if (answer.status === 401) {
      throw new TargetError(`the key is not valid for this target: GET ${target.baseUrl}/api/v1/business answered 401 with the given key`);
    }
    // The retrieval's body is not shown: where the record sits in it is learned, never guessed.
    if (answer.status === 200 && isRecord(answer.json)) {
      const spec = await loadSpec();
      const names = spec.businessFields.map((f) => businessFieldName(f.specName, f.vendorConfigKey, target));
      const read = businessRecordIn(answer.json, names, target.vendor.businessEnvelope);
      if ('problem' in read) {
        throw new UsageError(`GET ${target.baseUrl}/api/v1/business: ${read.problem}`);
      }
    }
  } catch (e) {
    if (e instanceof NoAnswerError) throw new TargetError(`target unreachable: ${target.baseUrl}: ${e.message.replace(/^GET \S+: /, '')}`);
    throw e;
  } finally {
    await client.close();
  }
}
