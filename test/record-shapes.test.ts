/**
 * What the suite writes back to a customer or team member whose fields are not shown: a field the
 * vendor's patch names or a name-like one, never the id, a server stamp or another "…At" field.
 * And what it sends as a new customer: an email of its own on every create.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_VENDOR_CONFIG } from '../helpers/config/vendor-config.ts';
import { NothingToWriteBack, writeBackBody } from '../helpers/records/record-shapes.ts';
import { customerFixture } from '../helpers/records/fixtures.ts';
import { changedFieldNames, changedFields } from '../helpers/records/compare.ts';
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
