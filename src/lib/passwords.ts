import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PASSWORD_HASH_COST, hashPassword } from './hashing.js';

export const MIN_PASSWORD_LENGTH = 10;
/** scrypt's cost does not depend on the length, but nobody needs more, and a cap keeps bodies small. */
export const MAX_PASSWORD_LENGTH = 200;

/** The file beside this module (from source), or the source copy next to the compiled one (dist/src/lib → src/lib). */
function listFile(): string {
  const candidates = [new URL('./common-passwords.txt', import.meta.url), new URL('../../../src/lib/common-passwords.txt', import.meta.url)].map((url) => fileURLToPath(url));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`The list of common passwords is missing (looked in ${candidates.join(', ')}).`);
  return found;
}

/** Reads the list of common passwords (lowercase, one a line, # comments). The app reads it once, at start-up. */
export function loadCommonPasswords(file: string = listFile()): ReadonlySet<string> {
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.trim().toLowerCase())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

export interface PasswordPolicy {
  /**
   * Why a password is refused, in the words a VALIDATION_ERROR on the password field says it, or
   * undefined when it may be used: the accounts' services and the CLI answer the error (lib/ imports
   * nothing of http/).
   */
  refusal(password: string): string | undefined;
  /** The password's slow hash at the configured cost (PASSWORD_HASH_COST); verifyPassword reads the cost from the hash. */
  hash(password: string): Promise<string>;
}

/** At least 10 characters, at most 200, not one character repeated, and not among the common passwords (ignoring case). */
export function createPasswordPolicy(common: ReadonlySet<string>, hashCost: number = DEFAULT_PASSWORD_HASH_COST): PasswordPolicy {
  return {
    hash: (password) => hashPassword(password, hashCost),
    refusal(password) {
      const length = [...password].length;
      if (length < MIN_PASSWORD_LENGTH) return `Use a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
      if (length > MAX_PASSWORD_LENGTH) return `Use a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
      if (/^(.)\1*$/su.test(password) || common.has(password.trim().toLowerCase())) {
        return 'This password is one of the most common ones, which attackers try first. Choose a less predictable one: a few unrelated words work well.';
      }
      return undefined;
    },
  };
}
