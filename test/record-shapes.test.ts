/**
 * What the suite writes back to a customer or team member whose fields are not shown: a field the
 * vendor's patch or fixture names, never the id nor a field the target was measured to move by
 * itself (no name decides). What it sends as a new customer: an email of its own on every create,
 * the marker in the fixture's longest free-text field. What the target moves by itself, measured.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { NothingToWriteBack, writeBackBody } from '../helpers/records/record-shapes.ts';
import { customerFixture, customerPatchOf, markerField } from '../helpers/records/fixtures.ts';
import { movedByWrite, serverFields } from '../helpers/records/server-fields.ts';
import { changedFieldNames, changedFields, comparableFields } from '../helpers/records/compare.ts';
import { recordIn } from '../helpers/contract/record-in.ts';
import { changedNotDerived, derivedFields } from '../helpers/records/derived.ts';
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

describe('recordIn: the one reader of a customer or team member record', () => {
  test('the top object when it carries the id field, else the one property holding the id asked for or a value sent', () => {
    const record = { id: 'cus_1', first_name: 'Ada [scr-1]' };
    expect(recordIn(record, 'id', { id: 'cus_1' })).toBe(record);
    expect(recordIn({ customer: record }, 'id', { id: 'cus_1' })).toBe(record);
    expect(recordIn({ data: record, meta: { id: 'page' } }, 'id', { id: 'cus_1' })).toBe(record);
    expect(recordIn({ customer: record, links: {} }, 'id', { sent: { first_name: 'Ada [scr-1]' } })).toBe(record);
    expect(recordIn({ team_member: record }, 'id')).toBe(record);
  });

  test('a record of another id, or none, is the top object, for the caller to judge', () => {
    const other = { id: 'cus_2', referrer: { id: 'cus_1' } };
    expect(recordIn(other, 'id', { id: 'cus_1' })).toBe(other);
    const bare = { first_name: 'Ada' };
    expect(recordIn(bare, 'id', { id: 'cus_1' })).toBe(bare);
    expect(recordIn({ a: { id: 1 }, b: { id: 2 } }, 'id')).toEqual({ a: { id: 1 }, b: { id: 2 } });
    expect(recordIn([record()], 'id')).toBeUndefined();
  });
  const record = () => ({ id: 1 });
});

describe('a list row and a find are compared only on fields of one JSON type', () => {
  test('a key in the list and an object in the find are not compared; a value and null are', () => {
    expect(comparableFields({ id: 1, role: 'owner', name: null, only: 1 }, { id: 1, role: { key: 'owner' }, name: 'Ada' })).toEqual(['id', 'name']);
  });
});

describe('derivedFields: what a twin given the same patch shows the target derives', () => {
  const patched = (before: Record<string, unknown>, after: Record<string, unknown>) => ({ before, after });
  test('a field that changed alike on the twin is derived; one the twin kept, or that vanished, is not', () => {
    const record = patched({ fullName: 'A B', stamp: 1, gone: 1 }, { fullName: 'X B', stamp: 1 });
    const twin = patched({ fullName: 'A B', stamp: 1, gone: 1 }, { fullName: 'X B', stamp: 1 });
    expect(derivedFields(['fullName', 'gone'], record, twin)).toEqual(['fullName']);
    expect(derivedFields(['fullName'], record, patched({ fullName: 'A B' }, { fullName: 'A B' }))).toEqual([]);
  });

  test('twins that held one value before and two after: not derived (identical twins change identically)', () => {
    const record = patched({ fullName: 'A B' }, { fullName: 'X B' });
    expect(derivedFields(['fullName'], record, patched({ fullName: 'A B' }, { fullName: 'Y B' }))).toEqual([]);
    expect(derivedFields(['fullName'], record, patched({ fullName: 'C D' }, { fullName: 'X D' }))).toEqual(['fullName']);
  });

  test('the twin is patched only when a field not sent changed, and what is known derived is not asked again', async () => {
    let asked = 0;
    const twin = async () => (asked++, patched({ first: 'A', full: 'A B' }, { first: 'X', full: 'X B' }));
    const derived = new Set<string>();
    expect(await changedNotDerived({ first: 'X' }, patched({ first: 'A' }, { first: 'X' }), twin, derived)).toEqual([]);
    expect(asked).toBe(0);
    expect(await changedNotDerived({ first: 'X' }, patched({ first: 'A', full: 'A B', role: 'o' }, { first: 'X', full: 'X B', role: 's' }), twin, derived)).toEqual(['role']);
    expect([...derived, asked]).toEqual(['full', 1]);
    expect(await changedNotDerived({ first: 'Y' }, patched({ full: 'X B' }, { full: 'Y B' }), twin, derived)).toEqual([]);
    expect(asked).toBe(1);
  });
});

describe('the default customer patch and marker field come from the fixture the vendor gives', () => {
  test('never a field name the fixture does not show', () => {
    expect(customerPatchOf(target())).toEqual({ firstName: 'Changed' });
    const snake = target({ customerFixture: { first_name: 'C', last_name: 'D', email_address: 'c@example.com' }, markerField: 'last_name' });
    expect(customerPatchOf(snake)).toEqual({ first_name: 'Changed' });
    const given = target({ customerFixture: { emailAddress: 'c@example.com', givenName: 'C', familyName: 'D' } });
    expect([markerField(given), customerPatchOf(given)]).toEqual(['givenName', { familyName: 'Changed' }]);
    expect(customerPatchOf(target({ customerPatch: { nickname: 'N' } }))).toEqual({ nickname: 'N' });
  });
});
