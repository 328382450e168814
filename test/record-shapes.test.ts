/**
 * What the suite writes back to a customer or team member whose fields are not shown: a field the
 * vendor's patch or fixture names, never the id nor a field the target was measured to move by
 * itself (no name decides). What it sends as a new customer: an email of its own on every create,
 * the marker in the fixture's longest free-text field. What the target moves by itself, measured.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { NothingToWriteBack, writeBackBody } from '../helpers/records/record-shapes.ts';
import { customerFixture, markerField } from '../helpers/records/fixtures.ts';
import { movedByWrite, serverFields } from '../helpers/records/server-fields.ts';
import { changedFieldNames, changedFields } from '../helpers/records/compare.ts';
import type { Operation } from '../helpers/contract/spec.ts';
import type { TargetConfig } from '../helpers/config/target.ts';

const target = (vendor: Partial<TargetConfig['vendor']> = {}) => ({ runId: 'scr-20260101-abcdef12', vendor: { ...DEFAULT_VENDOR_CONFIG, ...vendor } }) as TargetConfig;
const update = { method: 'PATCH', path: '/api/v1/team-members/{id}', resource: 'team-members' } as Operation;

describe('writeBackBody', () => {
  test("prefers a field the vendor's fixture names over the first string field", () => {
    expect(writeBackBody({ id: 'tm_1', role: 'owner', updatedAt: 'x', lastName: 'Lopez' }, target(), update)).toEqual({ lastName: 'Lopez' });
  });

  test("prefers teamMemberPatch's keys", () => {
    expect(writeBackBody({ id: 'tm_1', nickname: 'Mo', lastName: 'Lopez' }, target({ teamMemberPatch: { nickname: 'X' } }), update)).toEqual({ nickname: 'Mo' });
  });

  test('never picks the id or a field the target moves by itself; a name alone decides nothing', () => {
    serverFields().fromReads('team-members', [{ etag: 'a' }, { etag: 'b' }, { etag: 'c' }]);
    expect(writeBackBody({ id: 'tm_1', etag: 'x', status: 'active' }, target(), update)).toEqual({ status: 'active' });
    expect(writeBackBody({ id: 'tm_1', updatedAt: 'y' }, target(), update)).toEqual({ updatedAt: 'y' });
    expect(() => writeBackBody({ id: 'tm_1', etag: 'x' }, target(), update)).toThrow(NothingToWriteBack);
  });
});

describe('customerFixture', () => {
  test('every create sends emails of its own, differing only there', () => {
    const [a, b] = [customerFixture(target(), 'twin'), customerFixture(target(), 'twin')];
    expect(a.email).toMatch(/^conformance\.customer\+scr-20260101-abcdef12-\d+@example\.com$/);
    expect(a.email).not.toBe(b.email);
    expect({ ...a, email: '' }).toEqual({ ...b, email: '' });
  });
});

describe('the field diff', () => {
  test("names the fields that differ, presence included, never one the resource's target moves by itself; among given names in their order", () => {
    serverFields().fromReads('diffed', [{ version: 1 }, { version: 2 }, { version: 3 }]);
    const before = { id: 1, name: 'A', phone: null, version: 1, updatedAt: 'x', tags: ['a'] };
    const after = { id: 1, name: 'B', version: 2, updatedAt: 'x', tags: ['a'], email: 'e@example.com' };
    expect(changedFieldNames(before, after, undefined, 'diffed')).toEqual(['name', 'phone', 'email']);
    expect(changedFieldNames(before, after)).toEqual(['name', 'phone', 'version', 'email']);
    expect(changedFieldNames(before, after, ['email', 'tags', 'name'])).toEqual(['email', 'name']);
    expect(changedFields(before, after, ['name'], 'diffed')).toEqual(['phone: was null, now nothing', 'email: was nothing, now "e@example.com"']);
    // Named like a stamp, but it did not move: judged.
    expect(changedFieldNames(before, { ...before, updatedAt: 'z' }, undefined, 'diffed')).toEqual(['updatedAt']);
  });
});

describe('what the target moves by itself', () => {
  test('a field that differs on every read in a row is learned; one that differs once is not', () => {
    serverFields().fromReads('read', [{ a: 1, b: 1, seen: 't1' }, { a: 2, b: 1, seen: 't2' }, { a: 2, b: 1, seen: 't3' }]);
    expect([...serverFields().of('read')]).toEqual(['seen']);
  });

  test('a write-back that moved a field not sent: sent again, what moves again is learned, what a reset left standing is judged', async () => {
    let version = 2;
    const again = { write: async () => void (version += 1), read: async () => ({ id: 1, name: 'A', version, notes: null }), windowMs: 0 };
    const moved = await movedByWrite('written', { id: 1, name: 'A', version: 1, notes: 'x' }, { id: 1, name: 'A', version: 2, notes: null }, { name: 'A' }, again);
    expect(moved).toEqual(['notes']);
    expect([...serverFields().of('written')]).toEqual(['version']);
  });
});

describe('the marker field', () => {
  test("the vendor's markerField, else the fixture's longest free-text field that customerPatch does not name", () => {
    expect(markerField(target())).toBe('lastName');
    expect(markerField(target({ customerFixture: { givenName: 'Conf', familyName: 'Ormance', emailAddress: 'c@example.test' }, customerPatch: { familyName: 'Updated' } }))).toBe('givenName');
    expect(markerField(target({ customerFixture: { first_name: 'Conformance', last_name: 'Customer', phone: '+14155550123' }, customerPatch: { first_name: 'X' } }))).toBe('last_name');
    expect(markerField(target({ markerField: 'note', customerFixture: { note: 'n', name: 'Longer name' } }))).toBe('note');
  });
});
