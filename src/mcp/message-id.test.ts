import { describe, expect, it } from 'vitest';
import { readableMessageId } from './message-id.js';

describe('the id of a JSON-RPC request whose body was refused', () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);

  it('is read from the text past any depth, wherever the member is', () => {
    expect(readableMessageId(`{"jsonrpc":"2.0","id":42,"params":{"arguments":${deep}}}`)).toBe(42);
    expect(readableMessageId(`{"params":{"arguments":${deep},"id":"inner"},"id" : "call-7"}`)).toBe('call-7');
    expect(readableMessageId('{"method":"id","id":-3}')).toBe(-3);
    expect(readableMessageId('{"id":"a\\"b"}')).toBe('a"b');
  });

  it('is undefined when there is no usable id: none, a fraction, an object, null, a batch, bytes that were not UTF-8', () => {
    for (const text of ['{"method":"x"}', '{"id":1.5}', '{"id":{"a":1}}', '{"id":null}', '[{"id":1}]', '{"id":"ca\uFFFD"}', '{"id":12345678901234567}', 'not json', '']) {
      expect(readableMessageId(text), text).toBeUndefined();
    }
  });

  it('keeps the last id, as JSON.parse would', () => {
    expect(readableMessageId('{"id":1,"id":2}')).toBe(2);
  });
});
