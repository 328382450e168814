/**
 * Small pure functions of requests and answers, apart from the HTTP client (which loads undici):
 * what uses only these, --version and --help among them, loads nothing of it.
 */

/**
 * Whether an answer is a success: any 2xx, since the contract shows no status for most
 * operations. The one test of it, for checks and clean-up alike.
 */
export const is2xx = (answer: { status: number }): boolean => answer.status >= 200 && answer.status < 300;

/** A body as one quoted line, cut at `max` characters: for messages. */
export function excerpt(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > max ? `${line.slice(0, max)}…` : line);
}

/** The path of one record: `path` with its {id} filled in by the URL-encoded id (e.g. `${collection}/{id}`). */
export const fillId = (path: string, id: unknown): string => path.replace(/\{[^}]+\}/, () => encodeURIComponent(String(id)));
