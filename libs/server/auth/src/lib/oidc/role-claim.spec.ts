import { roleClaimValues, ssoUsername } from './role-claim';

describe(roleClaimValues.name, () => {
  it('reads a string or the strings of an array', () => {
    expect(roleClaimValues({ groups: ['arr-staff', 7, 'family'] }, 'groups')).toEqual(['arr-staff', 'family']);
    expect(roleClaimValues({ role: 'arr-owners' }, 'role')).toEqual(['arr-owners']);
    expect(roleClaimValues({ groups: { nested: true } }, 'groups')).toEqual([]);
    expect(roleClaimValues({}, 'groups')).toEqual([]);
  });

  it('reads a claim named with dots as it is, else as a path into nested claims', () => {
    expect(roleClaimValues({ 'https://arr.example/roles': ['a'] }, 'https://arr.example/roles')).toEqual(['a']);
    expect(
      roleClaimValues({ resource_access: { arrbiter: { roles: ['editor'] } } }, 'resource_access.arrbiter.roles'),
    ).toEqual(['editor']);
  });
});

describe(ssoUsername.name, () => {
  it('takes preferred_username, else a verified email, lower-cased', () => {
    expect(ssoUsername({ preferred_username: 'Alice', email: 'x@y' })).toBe('alice');
    expect(ssoUsername({ email: 'Bob@Example.org', email_verified: true })).toBe('bob@example.org');
    expect(ssoUsername({ name: 'Carol' })).toBeUndefined();
  });

  it('never takes an email the provider has not verified', () => {
    expect(ssoUsername({ email: 'owner@example.org' })).toBeUndefined();
    expect(ssoUsername({ email: 'owner@example.org', email_verified: false })).toBeUndefined();
    expect(ssoUsername({ email: 'owner@example.org', email_verified: 'true' })).toBeUndefined();
  });
});
