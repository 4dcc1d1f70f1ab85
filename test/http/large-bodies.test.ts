/**
 * Large answers are garbage once judged: the client asks for a full collection after every 8 MiB of them (an
 * answer counted as the bytes read plus the text made of them), and answers under 128 KiB never count.
 */
import { expect, test } from 'vitest';
import { collectNow, noteAnswer } from '../../src/runner/http/large-bodies.ts';

const MiB = 1024 * 1024;

test('a full collection after every 8 MiB of large answers; small answers never count', () => {
  collectNow();
  // 1 MiB answers, counted at 2 MiB (the bytes and their text): the fourth passes the budget.
  const asked = Array.from({ length: 16 }, () => noteAnswer(2 * MiB));
  expect(asked.map((a, i) => (a ? i + 1 : 0)).filter(Boolean)).toEqual([4, 8, 12, 16]);
  for (let i = 0; i < 1000; i++) expect(noteAnswer(128 * 1024 - 1)).toBe(false);
  // A collection between phases starts the count again.
  noteAnswer(6 * MiB);
  collectNow();
  expect(noteAnswer(6 * MiB)).toBe(false);
  expect(noteAnswer(2 * MiB)).toBe(true);
});
