/**
 * Slots: at most `size` tasks at once, in the order asked; a lone task runs with none beside it (it waits for those
 * running, and those asked meanwhile wait for it), as the re-send of a cut request does (Caller.droppedOrNot).
 */
import { describe, expect, test } from 'vitest';
import { Slots } from '../../src/runner/execute/slots.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Slots', () => {
  test('at most size at once, and a lone task with nothing beside it, before the tasks asked after it', async () => {
    const slots = new Slots(3);
    let running = 0;
    let most = 0;
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${name} (${running} running)`);
      await tick(ms);
      running--;
      log.push(`end ${name}`);
    };
    const first = [1, 2, 3, 4].map((n) => slots.run(task(`t${n}`, 20)));
    await tick(5);
    const lone = slots.alone(task('lone', 10));
    const second = slots.alone(task('lone2', 10));
    const after = [5, 6].map((n) => slots.run(task(`t${n}`, 5)));
    await Promise.all([...first, lone, second, ...after]);
    expect(most).toBe(3);
    // Each lone task started alone, after the tasks running when it asked ended, and before every task waiting
    // then (t4, queued behind the three) or asked after it.
    expect(log.filter((l) => l.startsWith('start lone'))).toEqual(['start lone (1 running)', 'start lone2 (1 running)']);
    const at = (l: string) => log.findIndex((e) => e.startsWith(l));
    for (const n of [1, 2, 3]) expect(at(`end t${n}`)).toBeLessThan(at('start lone '));
    expect(at('end lone')).toBeLessThan(at('start lone2'));
    for (const n of [4, 5, 6]) expect(at('end lone2')).toBeLessThan(at(`start t${n}`));
    // The tasks that waited start together again, in the order they asked, once the lone ones ended.
    expect(log.filter((l) => /^start t[456]/.test(l))).toEqual(['start t4 (1 running)', 'start t5 (2 running)', 'start t6 (3 running)']);
  });

  test('a lone task with nothing running starts at once; a task that throws frees its slot', async () => {
    const slots = new Slots(1);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.alone(async () => 'alone')).toBe('alone');
    await expect(slots.alone(async () => Promise.reject(new Error('lone boom')))).rejects.toThrow('lone boom');
    expect(await slots.run(async () => 'after')).toBe('after');
  });
});
