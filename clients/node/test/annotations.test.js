import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectForTest, tempDbPath } from '../test-support/harness.js';

test('annotations added by two clients are both kept, and removed by at and text', async (t) => {
  const db = await tempDbPath(t);
  const first = await connectForTest(t, { db });
  const second = await connectForTest(t, { db });
  const task = await first.create({ title: 'call the garage', annotations: [{ text: 'no answer', at: '2026-01-02T09:00:00Z' }] });
  await second.update(task.id, { addAnnotations: [{ text: 'asked for a quote' }] });
  const after = await first.update(task.id, { addAnnotations: [{ text: 'earlier', at: '2026-01-01' }] });
  assert.deepEqual(after.annotations.map((annotation) => annotation.text), ['earlier', 'no answer', 'asked for a quote']);
  assert.deepEqual(after.annotations[0], { at: '2026-01-01T00:00:00.000Z', text: 'earlier' });
  const removed = await first.update(task.id, { removeAnnotations: [after.annotations[1]] });
  assert.deepEqual(removed.annotations.map((annotation) => annotation.text), ['earlier', 'asked for a quote']);
});

test('startedAt is set, and cleared when the task is done', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'write', startedAt: '2026-03-01T10:00:00+01:00' });
  assert.equal(task.startedAt, '2026-03-01T09:00:00.000Z');
  assert.equal((await client.update(task.id, { done: true })).startedAt, null);
});
