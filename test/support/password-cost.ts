/**
 * scrypt at N=2^10 instead of 2^17 in tests: a password hash in about 2 ms instead of 300–600, the difference between
 * minutes and seconds over the suites' sign-ups and sign-ins. The hash still goes through the same code
 * (lib/hashing.ts); PASSWORD_HASH_COST is the setting (config.ts refuses a cost below 17 in production).
 */
export const TEST_PASSWORD_HASH_COST = 10;
