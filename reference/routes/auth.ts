import { error, type RefContext, type RefRequest, type RefResponse } from '../types.ts';

/** Fault auth-cached-on-connection: the connections that have carried the valid key. */
const keyedConnections = new WeakSet<object>();

/**
 * Bearer-key check of section 5: returns the 401 answer for a missing, expired or invalid key,
 * or undefined when the request may proceed.
 */
export function requireKey(req: RefRequest, ctx: RefContext): RefResponse | undefined {
  const cached = ctx.fault('auth-cached-on-connection') && req.connection !== undefined;
  if (cached && keyedConnections.has(req.connection!)) return undefined;
  const denied = checkKey(req, ctx);
  if (cached && !denied) keyedConnections.add(req.connection!);
  return denied;
}

function checkKey(req: RefRequest, ctx: RefContext): RefResponse | undefined {
  // Fault auth-json-accept-only: the key guards the JSON route; a retrieval asking for anything else falls through to a page route.
  if (ctx.fault('auth-json-accept-only') && req.method === 'GET' && !/application\/json/.test(req.headers.accept ?? '')) return undefined;
  // Fault auth-json-content-type-only: the key check sits behind the JSON body parser; a body labelled otherwise goes by it.
  if (ctx.fault('auth-json-content-type-only') && req.body !== undefined && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) return undefined;
  const header = req.headers.authorization;
  const deny = (message: string): RefResponse => {
    const shown = ctx.fault('auth-401-echoes-key') ? `${message} (got "${header}")` : message;
    const refusal = error(ctx.fault('auth-403-instead-of-401') ? 403 : 401, 'unauthorized', shown);
    // Fault auth-401-carries-record: the error handler renders the record it was about to serve.
    return ctx.fault('auth-401-carries-record') ? { ...refusal, body: { ...(refusal.body as object), business: ctx.state.business } } : refusal;
  };
  if (header === undefined) return deny('Authorization header is missing');
  if (ctx.fault('auth-empty-token-accepted') && /^Bearer ?$/.test(header)) return undefined;
  const token = tokenOf(header, ctx);
  if (token === undefined) return deny('Authorization must be: Bearer <API_KEY>');
  if (token === ctx.expiredKey) return ctx.fault('auth-expired-key-accepted') ? undefined : deny('The API key has expired');
  if (token === ctx.apiKey && ctx.keyRevoked?.()) return deny('The API key has been revoked');
  if (ctx.fault('auth-any-token-accepted')) return undefined;
  const known = ctx.fault('auth-key-prefix-match') ? token.startsWith(ctx.apiKey) : keyMatches(token, ctx);
  if (!known) return deny('The API key is not valid');
  return undefined;
}

/** The token of "Bearer <token>"; the faults are the broken parsers of real code. */
function tokenOf(header: string, ctx: RefContext): string | undefined {
  // A bare key is taken for the token: the scheme is optional.
  if (ctx.fault('auth-no-scheme-accepted') && !header.includes(' ')) return header;
  if (ctx.fault('auth-any-scheme-accepted')) return /^\S+ (\S+)$/.exec(header)?.[1];
  // The pattern lacks its ^: "XBearer <key>" matches.
  if (ctx.fault('auth-scheme-unanchored')) return /Bearer (\S+)$/.exec(header)?.[1];
  // The pattern lacks its $: "Bearer <key> junk" matches.
  if (ctx.fault('auth-trailing-junk-accepted')) return /^Bearer (\S+)/.exec(header)?.[1];
  // startsWith('Bearer'), then the last word: "Bearerx <key>" and "Bearer: <key>" pass.
  if (ctx.fault('auth-scheme-prefix-match')) return header.startsWith('Bearer') ? header.split(' ').at(-1) : undefined;
  if (ctx.fault('auth-separator-optional')) return /^Bearer ?(\S+)$/.exec(header)?.[1];
  // What RFC 6750 and 7235 allow, and a product may or may not: the scheme in any case, several spaces.
  if (ctx.varies('auth-scheme-any-case')) return /^bearer (\S+)$/i.exec(header)?.[1];
  if (ctx.varies('auth-several-spaces')) return /^Bearer +(\S+)$/.exec(header)?.[1];
  return /^Bearer (\S+)$/.exec(header)?.[1];
}

/** How the token is compared with the key; the faults are the broken comparisons of real code. */
function keyMatches(token: string, ctx: RefContext): boolean {
  const key = ctx.apiKey;
  // A comparison over the shorter of the two lengths: a token that is a start of the key passes.
  if (ctx.fault('auth-key-prefix-compare')) return key.startsWith(token);
  if (ctx.fault('auth-key-suffix-match')) return token.endsWith(key);
  if (ctx.fault('auth-key-suffix-compare')) return key.endsWith(token);
  // Only the length and the ends are compared, as a masked key is shown ("ref_…a1b2").
  if (ctx.fault('auth-key-ends-compared')) return token.length === key.length && token.slice(0, 4) === key.slice(0, 4) && token.slice(-4) === key.slice(-4);
  if (ctx.fault('auth-key-case-insensitive')) return token.toLowerCase() === key.toLowerCase();
  // A hand-written loop that stops one character short.
  if (ctx.fault('auth-key-last-character-ignored')) return token.length === key.length && token.slice(0, -1) === key.slice(0, -1);
  return token === key;
}
