/** A record as JSON: an object of fields (their names and types are mostly not shown). */
export type Row = Record<string, unknown>;

export const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

