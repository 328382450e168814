/** A record as JSON: an object of fields (their names and types are mostly not shown). */
export type Row = Record<string, unknown>;

export const isRecord = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Fields a server stamps on every write (updatedAt, modified_at, lastModified…). The contract
 * shows no fields, so a change of these is not held against "fields not sent are unchanged".
 */
export const SERVER_MAINTAINED = /^(updated|modified|last_?modified)/i;
