import { describe, expect, it } from 'vitest';
import { readFormBody } from './form-body.js';

describe('form bodies (application/x-www-form-urlencoded), read strictly', () => {
  it('gives what URLSearchParams gives for any valid body', () => {
    for (const body of [
      'grant_type=client_credentials&scope=tools%3Aread+tools%3Awrite',
      'name=Caf%C3%A9&email=a%40b.com&empty=&flag&&=novalue',
      'odd=100%&bad=%zz&half=%4&plus=a+b%2Bc',
      'raw=Café 👋&emoji=%F0%9F%91%8B',
      '__proto__=x&constructor=y',
    ]) {
      expect(readFormBody(Buffer.from(body)), body).toEqual([...new URLSearchParams(body)]);
    }
  });

  it('refuses bytes that are not UTF-8, percent-encoded or raw, instead of turning them into U+FFFD', () => {
    expect(() => readFormBody(Buffer.from('name=Caf%C3%28'))).toThrow(/percent-encoded value that is not valid UTF-8/);
    expect(() => readFormBody(Buffer.from('na%FFme=x'))).toThrow(/not valid UTF-8/);
    expect(() => readFormBody(Buffer.concat([Buffer.from('name=Caf'), Buffer.from([0xc3, 0x28])]))).toThrow(/The form body is not valid UTF-8 \(at byte 8\)/);
  });
});
