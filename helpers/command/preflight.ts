import { ApiClient, NoAnswerError } from '../http/client.ts';
import { TargetError } from './errors.ts';
import type { TargetConfig } from '../config/target.ts';
import type { WireEntry } from '../http/exchanges.ts';

/**
 * One request before the suites: a target that cannot be reached, or that refuses the key,
 * ends the run at once with one clear line instead of a screen of failed checks.
 */
export async function preflight(target: TargetConfig, onWire?: (entry: WireEntry) => void): Promise<void> {
  const client = new ApiClient(target, undefined, onWire);
  client.phase = 'preflight';
  try {
    const answer = await client.send({ method: 'GET', path: '/api/v1/business' });
    if (answer.status === 401) {
      throw new TargetError(`the key is not valid for this target: GET ${target.baseUrl}/api/v1/business answered 401 with the given key`);
    }
  } catch (e) {
    if (e instanceof NoAnswerError) throw new TargetError(`target unreachable: ${target.baseUrl}: ${e.message.replace(/^GET \S+: /, '')}`);
    throw e;
  } finally {
    await client.close();
  }
}
