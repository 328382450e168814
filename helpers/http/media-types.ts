/**
 * The Accept and Content-Type headers section 4 declares for the business operations
 * ("application/json"), in forms that name the same media type (RFC 9110 8.3.1: type and subtype
 * are case-insensitive, parameters may follow; an Accept may list ranges) and in near misses that
 * name another. Whether a target takes a form other than the declared one is its choice: only
 * the declared headers are what the contract's promises are stated for.
 */
export interface HeaderForm {
  /** What a person reads in a story: "with Content-Type: text/plain". */
  name: string;
  accept?: string;
  contentType?: string;
  /** The declared value exactly: a request without a valid key then answers 401 (section 5.2). */
  declared: boolean;
}

export const DECLARED_FORM: HeaderForm = { name: '', declared: true };

const SAME_TYPE_ACCEPT = ['application/json; charset=utf-8', 'Application/JSON', 'application/json, text/plain;q=0.5', 'application/*', '*/*'];
const OTHER_ACCEPT = ['text/plain', 'application/xml', 'text/json'];
const SAME_TYPE_CONTENT = ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON'];
const OTHER_CONTENT = ['text/plain', 'text/json', 'application/x-www-form-urlencoded', 'application/merge-patch+json'];

/** Every form a request may carry besides the declared one: Accept on both operations, Content-Type on the update only. */
export function headerForms(update: boolean): HeaderForm[] {
  return [
    ...[...SAME_TYPE_ACCEPT, ...OTHER_ACCEPT].map((accept) => ({ name: `with Accept: ${accept}`, accept, declared: false })),
    ...(update ? [...SAME_TYPE_CONTENT, ...OTHER_CONTENT].map((contentType) => ({ name: `with Content-Type: ${contentType}`, contentType, declared: false })) : []),
  ];
}
