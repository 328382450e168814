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

/**
 * Exploration's forms of the Accept and Content-Type headers section 4 declares for the business
 * operations: mediaTypeValues' steps, and more of the same media type (type and subtype are
 * case-insensitive, an Accept may list ranges) and near misses naming another. Whether a target
 * takes a form other than the declared one is its choice: only the declared headers are what the
 * contract's promises are stated for.
 */
export interface HeaderForm {
  /** What a person reads in a story: "with Content-Type: text/plain". */
  name: string;
  /** Headers replacing the client's own (undefined leaves one out), as RequestShape takes them. */
  headers: Record<string, string | undefined>;
  /** The declared value exactly: a request without a valid key then answers 401 (section 5.2). */
  declared: boolean;
}

export const DECLARED_FORM: HeaderForm = { name: '', headers: {}, declared: true };

const DECLARED = 'application/json';
const MORE_ACCEPT = ['Application/JSON', 'application/json, text/plain;q=0.5', 'application/*', 'text/plain', 'text/json'];
const MORE_CONTENT = ['application/json;charset=UTF-8', 'Application/JSON', 'text/json', 'application/x-www-form-urlencoded'];

const formsOf = (header: string, more: string[]): HeaderForm[] =>
  [...mediaTypeValues(header, DECLARED).slice(1), ...more].map((value) => ({ name: value === undefined ? `without ${header}` : `with ${header}: ${value}`, headers: { [header.toLowerCase()]: value }, declared: false }));

/** Every form a request may carry besides the declared one: Accept on both operations, Content-Type on the update only. */
export function headerForms(update: boolean): HeaderForm[] {
  return [...formsOf('Accept', MORE_ACCEPT), ...(update ? formsOf('Content-Type', MORE_CONTENT) : [])];
}
