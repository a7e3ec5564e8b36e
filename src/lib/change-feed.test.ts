import { describe, expect, it } from 'vitest';
import { createChangeFeed } from './change-feed.js';

describe('change feed', () => {
  it('tells every listener the id, and a listener that throws neither fails the writer nor silences the ones after it', () => {
    const feed = createChangeFeed();
    const heard: string[] = [];
    feed.subscribe((id) => heard.push(`first:${id}`));
    feed.subscribe(() => {
      throw new Error('a cache failed');
    });
    feed.subscribe((id) => heard.push(`last:${id}`));
    expect(() => feed.notify('org_1')).not.toThrow();
    expect(heard).toEqual(['first:org_1', 'last:org_1']);
  });

  it('stops telling a listener once it unsubscribed', () => {
    const feed = createChangeFeed();
    const heard: string[] = [];
    const unsubscribe = feed.subscribe((id) => heard.push(id));
    feed.notify('tool_1');
    unsubscribe();
    feed.notify('tool_2');
    expect(heard).toEqual(['tool_1']);
  });
});
