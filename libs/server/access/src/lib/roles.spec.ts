import { hasRole, highestRole, lowerRole } from './roles';

describe('roles', () => {
  it('orders owner above editor above viewer', () => {
    expect(hasRole('owner', 'editor')).toBe(true);
    expect(hasRole('editor', 'editor')).toBe(true);
    expect(hasRole('viewer', 'editor')).toBe(false);
    expect(hasRole('editor', 'owner')).toBe(false);
  });

  it('caps a role under another and picks the highest of several', () => {
    expect(lowerRole('owner', 'editor')).toBe('editor');
    expect(lowerRole('viewer', 'owner')).toBe('viewer');
    expect(highestRole(['viewer', 'owner', 'editor'])).toBe('owner');
    expect(highestRole([])).toBeUndefined();
  });
});
