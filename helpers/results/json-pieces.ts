import { closeSync, openSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';

/** An array whose elements are made as they are written (see jsonPieces), one at a time: JSON.stringify sees the array whole. */
export class MadeArray {
  constructor(
    readonly length: number,
    readonly at: (i: number) => unknown,
  ) {}

  toJSON(): unknown[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}

/** A value as JSON.stringify sees it under `key`: its toJSON's, if it has one. */
const asJson = (value: unknown, key: string): unknown =>
  value instanceof MadeArray ? value : value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON(k: string): unknown }).toJSON(key) : value;
const dropped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';
const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object' && !(value instanceof Number || value instanceof String || value instanceof Boolean);

/**
 * JSON.stringify(value, null, 2), the same text, in pieces (issue 35: the reports of a run against
 * a million customers hold tens of thousands of requests, hundreds of MB as one string). The
 * arrays and objects down to `depth` are walked; each value below is stringified whole, one piece.
 * A JSON string is never cut: a piece boundary falls between tokens.
 */
export function* jsonPieces(value: unknown, depth = 4, indent = ''): Generator<string> {
  const v = asJson(value, '');
  yield* pieces(v, depth, indent);
}

function* pieces(v: unknown, depth: number, indent: string): Generator<string> {
  if (depth === 0 || !isContainer(v)) {
    yield (JSON.stringify(v, null, 2) ?? 'null').replaceAll('\n', `\n${indent}`);
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(v) || v instanceof MadeArray) {
    if (!v.length) return void (yield '[]');
    for (let i = 0; i < v.length; i++) {
      yield `${i ? ',' : '['}\n${inner}`;
      const item = asJson(Array.isArray(v) ? v[i] : v.at(i), String(i));
      yield* pieces(dropped(item) ? null : item, depth - 1, inner);
    }
    yield `\n${indent}]`;
    return;
  }
  let first = true;
  for (const key of Object.keys(v)) {
    const item = asJson((v as Record<string, unknown>)[key], key);
    if (dropped(item)) continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* pieces(item, depth - 1, inner);
  }
  yield first ? '{}' : `\n${indent}}`;
}

/**
 * Writes text given in pieces to `file` a chunk (about 1 MiB) at a time, each chunk passed through
 * `redact`: a secret sits inside one piece (a JSON string, one check's HTML), never across two.
 * Returns the SHA-256 of what was written.
 */
export function writePieces(file: string, text: Iterable<string>, redact: (t: string) => string): string {
  const fd = openSync(file, 'w');
  const hash = createHash('sha256');
  let chunk: string[] = [];
  let size = 0;
  const flush = () => {
    const safe = redact(chunk.join(''));
    writeSync(fd, safe);
    hash.update(safe);
    [chunk, size] = [[], 0];
  };
  try {
    for (const piece of text) {
      chunk.push(piece);
      size += piece.length;
      if (size >= CHUNK) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

const CHUNK = 1 << 20;
