import { error, type RefContext, type RefRequest, type RefResponse } from '../types.ts';

/**
 * Bearer-key check of section 5: returns the 401 answer for a missing, expired or invalid key,
 * or undefined when the request may proceed.
 */
export function requireKey(req: RefRequest, ctx: RefContext): RefResponse | undefined {
  const header = req.headers.authorization;
  const deny = (message: string): RefResponse => {
    const shown = ctx.fault('auth-401-echoes-key') ? `${message} (got "${header}")` : message;
    return error(ctx.fault('auth-403-instead-of-401') ? 403 : 401, 'unauthorized', shown);
  };
  if (header === undefined) return deny('Authorization header is missing');
  if (ctx.fault('auth-empty-token-accepted') && /^Bearer ?$/.test(header)) return undefined;
  const scheme = ctx.fault('auth-any-scheme-accepted') ? /^\S+ (\S+)$/ : /^Bearer (\S+)$/;
  const match = scheme.exec(header);
  if (!match) return deny('Authorization must be: Bearer <API_KEY>');
  const token = match[1];
  if (token === ctx.expiredKey) return ctx.fault('auth-expired-key-accepted') ? undefined : deny('The API key has expired');
  if (token === ctx.apiKey && ctx.keyRevoked?.()) return deny('The API key has been revoked');
  if (ctx.fault('auth-any-token-accepted')) return undefined;
  const known = ctx.fault('auth-key-prefix-match') ? token.startsWith(ctx.apiKey) : keyMatches(token, ctx);
  if (!known) return deny('The API key is not valid');
  return undefined;
}

/** How the token is compared with the key; the faults are the broken comparisons of real code. */
function keyMatches(token: string, ctx: RefContext): boolean {
  const key = ctx.apiKey;
  // A comparison over the shorter of the two lengths: a token that is a start of the key passes.
  if (ctx.fault('auth-key-prefix-compare')) return key.startsWith(token);
  if (ctx.fault('auth-key-case-insensitive')) return token.toLowerCase() === key.toLowerCase();
  // A hand-written loop that stops one character short.
  if (ctx.fault('auth-key-last-character-ignored')) return token.length === key.length && token.slice(0, -1) === key.slice(0, -1);
  return token === key;
}
