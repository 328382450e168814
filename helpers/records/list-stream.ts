import { JSONParser } from '@streamparser/json';
import { BodyTooLarge, type BodySink } from '../http/client.ts';
import { isRecord, type Row } from '../contract/record.ts';
import { listItems } from './record-shapes.ts';

/** What a list page held once its rows went by: the answer without them, and where they were. */
export interface ListPage {
  /** The answer as parsed, each row taken out of its array: the envelope, its links, counts and cursors. */
  skeleton: unknown;
  /** Where the rows were: "" for a bare array, else the keys down to their array ("data", "_embedded.customers"). */
  listPath?: string;
  /** Rows handed over from this page. */
  rows: number;
  /** Other arrays that also held objects carrying the id (JSON:API `included`…): which is the list is then not told. */
  others: string[];
  /** The sink stopped reading: the visitor had what it looked for. */
  stopped: boolean;
}

/**
 * Takes a list answer as it arrives (issue 35: a list of any length in bounded memory). A row is
 * an object carrying the id field, in an array that sits under objects only (the top-level array,
 * or one at any depth of the envelope: `data`, `_embedded.customers`); an array inside a row (a
 * customer's own list of things) is part of that row. Each row goes to `onRow` and out of the
 * parse tree at once; the rest (the envelope: links, cursors, totals) is kept as the skeleton.
 * Only the first array found holding rows is the list; rows elsewhere are kept and named (others).
 *
 * The byte limit holds for what is read between two rows: one record, or the envelope, never the
 * whole list; so does the request timeout (the client waits for the next row, see rows()).
 *
 * @streamparser/json parses: it has no dependencies, is typed, is kept up (2026 releases), runs
 * on any Node the project supports (>= 20.19, plain ES2020), takes bytes as they come and hands
 * every completed value with its place (key, parent, stack), so the rows are found by what they
 * are, not by a path given in advance (the contract does not show the envelope). stream-json was
 * the other candidate: a pipeline of Node streams with a dependency, and its selectors want the
 * path up front.
 */
export function listSink(idField: string, limit: number, onRow: (row: Row) => boolean | void): { sink: BodySink; page(): ListPage } {
  // A string buffer of its own: the parser's default copies every string byte by byte (twice as slow on a list).
  const parser = new JSONParser({ keepStack: true, stringBufferSize: 64 * 1024 });
  const others = new Set<string>();
  let skeleton: unknown;
  let listPath: string | undefined;
  let rows = 0;
  let stopped = false;
  let failed: string | undefined;
  /** Bytes read since the last row was taken out (at chunk grain): what is held besides the rows. */
  let held = 0;
  let rowInChunk = false;
  let ended = false;
  parser.onEnd = () => void (ended = true);
  parser.onValue = ({ value, parent, stack }) => {
    // The rest of a chunk is still parsed once the visitor stopped: it hears of no more rows.
    if (stopped) return;
    if (stack.length === 0) skeleton = value;
    if (!Array.isArray(parent) || !isRecord(value) || !(idField in value)) return;
    // stack[0] is the top level's own slot; stack[i].value (i >= 1) are the containers above `parent`.
    if (stack.slice(1).some((s) => Array.isArray(s.value))) return;
    const path = stack.slice(1).map((s) => String(s.key)).join('.');
    if (listPath === undefined) listPath = path;
    if (path !== listPath) return void others.add(path);
    parent.pop();
    rows += 1;
    rowInChunk = true;
    if (onRow(value as Row)) stopped = true;
  };
  const sink: BodySink = {
    write(chunk) {
      if (stopped || failed !== undefined) return true;
      rowInChunk = false;
      try {
        parser.write(chunk);
      } catch (e) {
        failed = `not JSON (${(e as Error).message})`;
        return true;
      }
      held = rowInChunk ? 0 : held + chunk.length;
      if (held > limit) throw new BodyTooLarge(limit, listPath === undefined ? 'response body' : 'one record of the list (or what lies between two)');
      return stopped;
    },
    end() {
      if (failed !== undefined) return { json: undefined, jsonError: failed };
      if (stopped) return { json: skeleton };
      try {
        if (!ended) parser.end();
      } catch (e) {
        return { json: undefined, jsonError: `not JSON (${(e as Error).message})` };
      }
      if (skeleton === undefined) return { json: undefined, jsonError: rows === 0 ? 'empty body' : 'the body ended before its JSON did' };
      return { json: skeleton };
    },
    rows: () => rows,
  };
  return { sink, page: () => ({ skeleton, listPath, rows, others: [...others], stopped }) };
}

/**
 * What is left of the list's array once its rows were taken out (elements that are no record
 * carrying the id), or, when no row was found, the one array there is (see listItems); undefined
 * when the answer holds no list.
 */
export function leftInList(page: ListPage): unknown[] | undefined {
  if (page.listPath === undefined) return listItems(page.skeleton);
  let node: unknown = page.skeleton;
  for (const key of page.listPath === '' ? [] : page.listPath.split('.')) node = isRecord(node) ? node[key] : undefined;
  return Array.isArray(node) ? node : undefined;
}
