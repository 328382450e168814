import { randomBytes } from 'node:crypto';
import { ApiClient, NoAnswerError, type Answer } from '../http/client.ts';
import { TargetError } from './errors.ts';
import type { TargetConfig } from '../config/target.ts';
import { loadSpec } from '../contract/spec.ts';

/**
 * A few requests before the suites: a target that cannot be reached, that refuses the key, or
 * that is not the Scheduling API at all ends the run at once with one clear line instead of a
 * screen of failed checks.
 */
export async function preflight(target: TargetConfig): Promise<void> {
  const client = new ApiClient(target);
  try {
    const answer = await client.send({ method: 'GET', path: '/api/v1/business' });
    if (answer.status === 401) {
      throw new TargetError(`the key is not valid for this target: GET ${target.baseUrl}/api/v1/business answered 401 with the given key`);
    }
    const missing = await noApi(client);
    if (missing) throw new TargetError(`no Scheduling API v1 at ${target.baseUrl}: ${missing} — is the base URL right?`);
  } catch (e) {
    if (e instanceof NoAnswerError) throw new TargetError(`target unreachable: ${target.baseUrl}: ${e.message.replace(/^GET \S+: /, '')}`);
    throw e;
  } finally {
    await client.close();
  }
}

const isHtml = (a: Answer) => /^text\/html/i.test(a.headers['content-type'] ?? '') || /^\s*<(!doctype|html)/i.test(a.text);

/**
 * Why the target cannot be the Scheduling API, or undefined when it may be. Asks every documented
 * path that needs no id (GET, so nothing changes) and one undocumented path. Only when *every*
 * documented path answers alike is it no API: one missing route is a finding the checks report.
 */
async function noApi(client: ApiClient): Promise<string | undefined> {
  const paths = [...new Set((await loadSpec()).operations.filter((o) => o.method === 'GET' && !o.itemPath).map((o) => o.path))];
  const answers: Answer[] = [];
  for (const path of paths) answers.push(await client.send({ method: 'GET', path }));
  if (answers.every((a) => a.status === 404)) return 'every documented path answered 404';
  if (answers.every(isHtml)) return 'every documented path answered an HTML page';
  const same = (a: Answer, b: Answer) => a.status === b.status && a.text === b.text;
  if (answers.every((a) => same(a, answers[0]))) {
    const control = await client.send({ method: 'GET', path: `/api/v1/scr-no-such-path-${randomBytes(4).toString('hex')}` });
    if (same(control, answers[0])) return `every documented path answered ${answers[0].status} with the same body as a path the contract does not have`;
  }
  return undefined;
}
