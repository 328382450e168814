/**
 * The values a header the contract fixes to one media type is sent with, beside the declared one,
 * where the answer must not depend on it (the 401 matrix: authorization is a function of the key
 * alone). Each is a step from the declared type by RFC 9110's grammar: the header left out, the
 * type with a parameter (8.3.1), another type. Accept takes a media range (12.5.1): also the
 * range of every type, and another subtype of the same type. Content-Type names what the body is:
 * also a type of the same structured syntax (RFC 6839: `+json`), as a JSON merge patch is.
 * The declared value comes first.
 */
export function mediaTypeValues(header: string, declared: string): (string | undefined)[] {
  const [type, subtype] = declared.split('/');
  const withParameter = `${declared}; charset=utf-8`;
  if (header.toLowerCase() === 'accept') return [declared, undefined, '*/*', withParameter, 'text/html', `${type}/xml`];
  return [declared, undefined, `${type}/merge-patch+${subtype}`, 'text/plain', withParameter];
}
