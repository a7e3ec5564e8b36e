import { describe, expect, it } from 'vitest';
import { createBackgroundQueue } from './background-queue.js';

function recordingLog() {
  const errors: Array<{ message: string; err: unknown }> = [];
  return { errors, log: { error: (object: { err: unknown }, message: string) => void errors.push({ message, err: object.err }) } };
}

describe('background queue', () => {
  it('runs a job only after the code that pushed it has finished its turn, in arrival order', async () => {
    const { log } = recordingLog();
    const queue = createBackgroundQueue({ log, concurrency: 1 });
    const order: string[] = [];
    queue.push('a', async () => void order.push('a'));
    queue.push('b', async () => void order.push('b'));
    // The answer is written in this turn and the microtasks after it: no job has started yet.
    await Promise.resolve();
    await Promise.resolve();
    order.push('answered');
    expect(queue.size()).toBe(2);
    await queue.idle();
    expect(order).toEqual(['answered', 'a', 'b']);
    expect(queue.size()).toBe(0);
  });

  it('logs a failed job (rejected or thrown) with its name and goes on with the next', async () => {
    const { errors, log } = recordingLog();
    const queue = createBackgroundQueue({ log, concurrency: 1 });
    let ran = false;
    queue.push('password reset', async () => {
      throw new Error('SMTP refused');
    });
    queue.push('sync thrower', () => {
      throw new Error('at once');
    });
    queue.push('after', async () => void (ran = true));
    await queue.idle();
    expect(ran).toBe(true);
    expect(errors.map((e) => [e.message, (e.err as Error).message])).toEqual([
      ['password reset failed (background job)', 'SMTP refused'],
      ['sync thrower failed (background job)', 'at once'],
    ]);
  });

  it('runs at most `concurrency` jobs at once, and idle() waits for every one of them', async () => {
    const { log } = recordingLog();
    const queue = createBackgroundQueue({ log, concurrency: 2 });
    let running = 0;
    let most = 0;
    let done = 0;
    for (let i = 0; i < 7; i++) {
      queue.push('job', async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        done++;
      });
    }
    await queue.idle();
    expect(done).toBe(7);
    expect(most).toBe(2);
  });

  it('drops and logs a job past maxWaiting, so it never grows without bound', async () => {
    const { errors, log } = recordingLog();
    const queue = createBackgroundQueue({ log, concurrency: 1, maxWaiting: 3 });
    let done = 0;
    for (let i = 0; i < 5; i++) queue.push('password reset', async () => void done++);
    expect(queue.size()).toBe(3);
    await queue.idle();
    expect(done).toBe(3);
    expect(errors.map((e) => e.message)).toEqual(['password reset dropped: the background queue is full', 'password reset dropped: the background queue is full']);
  });
});
