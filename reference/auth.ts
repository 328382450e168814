import { error, type RefContext, type RefRequest, type RefResponse } from './types.ts';

/**
 * Bearer-key check of section 5: returns the 401 answer for a missing, expired or invalid key,
 * or undefined when the request may proceed.
 */
export function requireKey(req: RefRequest, ctx: RefContext): RefResponse | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return error(401, 'unauthorized', 'Authorization header is missing');
  const match = /^Bearer (\S+)$/.exec(header);
  if (!match) return error(401, 'unauthorized', 'Authorization must be: Bearer <API_KEY>');
  if (match[1] === ctx.expiredKey) return error(401, 'unauthorized', 'The API key has expired');
  if (match[1] !== ctx.apiKey) return error(401, 'unauthorized', 'The API key is not valid');
  return undefined;
}
