import { describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD_HASH_COST, hashPassword, verifyPassword } from './hashing.js';

describe('password hashes', () => {
  it('use scrypt at OWASP\'s cost by default, and say their parameters', async () => {
    const stored = await hashPassword('violet kettle marathon');
    expect(DEFAULT_PASSWORD_HASH_COST).toBe(17);
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword('violet kettle marathon', stored)).toBe(true);
  });

  it('verify at the cost they were made with, so changing PASSWORD_HASH_COST locks nobody out', async () => {
    const cheap = await hashPassword('violet kettle marathon', 10);
    expect(cheap.split('$')[1]).toBe('1024');
    expect(await verifyPassword('violet kettle marathon', cheap)).toBe(true);
    expect(await verifyPassword('violet kettle marathoN', cheap)).toBe(false);
    expect(await verifyPassword('violet kettle marathon', 'bcrypt$whatever')).toBe(false);
  });

  it('salt every hash', async () => {
    expect(await hashPassword('same password here', 10)).not.toBe(await hashPassword('same password here', 10));
  });
});
