// The requester as people know them (issue 22): by the person's name now, a removed person
// said as such, and whatever is no person left as recorded.
import { describe, expect, it } from 'vitest';
import { approverRules, type ApproverPerson } from './approvers.js';

const ann: ApproverPerson = {
  id: 'usr-0a1b2c3d4e5f6071',
  name: 'Ann Rossi',
  email: 'ann@example.test',
  role: 'admin',
  disabled: false,
};
const { requester } = approverRules(() => [ann]);
const request = (requested_by: string, requested_by_id: string) => ({
  requested_by,
  requested_by_id,
});

describe('requester', () => {
  it('names a person by their name now, whatever name the request recorded', () => {
    expect(requester(request('Ann Example', ann.id))).toEqual({
      requested_by_name: 'Ann Rossi',
      requested_by_removed: false,
    });
  });

  it("resolves a person's id the admin token gave as by", () => {
    expect(requester(request(ann.id, 'admin-token')).requested_by_name).toBe('Ann Rossi');
  });

  it('says a person who is no longer here was removed', () => {
    expect(requester(request('Bob', 'usr-99aa88bb77cc66dd'))).toEqual({
      requested_by_name: null,
      requested_by_removed: true,
    });
  });

  it('leaves system, the admin token and names from before ids as they are', () => {
    for (const [by, id] of [
      ['system', 'system'],
      ['automation', 'admin-token'],
      ['alice', 'alice'],
    ] as const) {
      expect(requester(request(by, id))).toEqual({
        requested_by_name: null,
        requested_by_removed: false,
      });
    }
  });

  it('takes ids as given when nobody is known (unit tests of the service)', () => {
    expect(approverRules().requester(request('Ann', ann.id))).toEqual({
      requested_by_name: null,
      requested_by_removed: false,
    });
  });
});
