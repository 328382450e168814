/**
 * What the suite writes back to a customer or team member whose fields are not shown: a field the
 * vendor's patch names or a name-like one, never the id, a server stamp or another "…At" field.
 * And what it sends as a new customer: an email of its own on every create.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { NothingToWriteBack, writeBackBody } from '../helpers/records/record-shapes.ts';
import { customerFixture, customerPatchOf, markerField } from '../helpers/records/fixtures.ts';
import { changedFieldNames, changedFields, comparableFields } from '../helpers/records/compare.ts';
import { recordIn } from '../helpers/contract/record-in.ts';
import { changedNotDerived, derivedFields } from '../helpers/records/derived.ts';
import type { Operation } from '../helpers/contract/spec.ts';
import type { TargetConfig } from '../helpers/config/target.ts';

const target = (vendor: Partial<TargetConfig['vendor']> = {}) => ({ runId: 'scr-20260101-abcdef12', vendor: { ...DEFAULT_VENDOR_CONFIG, ...vendor } }) as TargetConfig;
const update = { method: 'PATCH', path: '/api/v1/team-members/{id}', resource: 'team-members' } as Operation;

describe('writeBackBody', () => {
  test('prefers a name-like field over the first string field', () => {
    expect(writeBackBody({ id: 'tm_1', role: 'owner', updatedAt: 'x', lastName: 'Lopez' }, target(), update)).toEqual({ lastName: 'Lopez' });
  });

  test("prefers teamMemberPatch's keys", () => {
    expect(writeBackBody({ id: 'tm_1', nickname: 'Mo', lastName: 'Lopez' }, target({ teamMemberPatch: { nickname: 'X' } }), update)).toEqual({ nickname: 'Mo' });
  });

  test('never picks the id, a server-maintained field or an …At stamp', () => {
    expect(writeBackBody({ id: 'tm_1', createdAt: 'x', updatedAt: 'y', lastModified: 'z', status: 'active' }, target(), update)).toEqual({ status: 'active' });
    expect(() => writeBackBody({ id: 'tm_1', createdAt: 'x', updatedAt: 'y' }, target(), update)).toThrow(NothingToWriteBack);
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
  test('names the fields that differ, presence included, never a server stamp; among given names in their order', () => {
    const before = { id: 1, name: 'A', phone: null, updatedAt: 'x', tags: ['a'] };
    const after = { id: 1, name: 'B', updatedAt: 'y', tags: ['a'], email: 'e@example.com' };
    expect(changedFieldNames(before, after)).toEqual(['name', 'phone', 'email']);
    expect(changedFieldNames(before, after, ['email', 'tags', 'name'])).toEqual(['email', 'name']);
    expect(changedFields(before, after, ['name'])).toEqual(['phone: was null, now nothing', 'email: was nothing, now "e@example.com"']);
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
