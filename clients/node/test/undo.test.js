import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TasklineError, UndoConflictError } from '../index.js';
import { connectForTest, tempDbPath } from '../test-support/harness.js';

test('undo() and redo() revert the newest group, and resolve with null when there is none', async (t) => {
  const client = await connectForTest(t);
  assert.equal(await client.undo(), null);
  const task = await client.create({ title: 'Buy milk', tags: ['errand'] });
  await client.update(task.id, { done: true });
  const undone = await client.undo();
  assert.equal(undone.undone.kind, 'write');
  assert.equal(undone.undone.own, true);
  assert.deepEqual(undone.tasks.map((t) => [t.id, t.done, t.version]), [[task.id, false, 3]]);
  assert.deepEqual(undone.deleted, []);
  const redone = await client.redo({ scope: 'connection' });
  assert.equal(redone.redone.kind, 'undo');
  assert.equal(redone.tasks[0].done, true);
  assert.equal(await client.redo(), null);
});

test('an edit by another connection is UndoConflictError (1007) until forced', async (t) => {
  const db = await tempDbPath(t);
  const mine = await connectForTest(t, { db });
  const theirs = await connectForTest(t, { db });
  const task = await mine.create({ title: 'mine' });
  await mine.update(task.id, { title: 'mine, edited' });
  await theirs.update(task.id, { notes: 'theirs' });
  const error = await mine.undo().then(() => assert.fail('undo succeeded'), (e) => e);
  assert.ok(error instanceof UndoConflictError && error instanceof TasklineError, `got ${error.name}`);
  assert.equal(error.code, 1007);
  assert.deepEqual(error.tasks.map((t) => t.notes), ['theirs']);
  assert.deepEqual(error.deleted, []);
  const forced = await mine.undo({ force: true });
  assert.equal(forced.tasks[0].title, 'mine');
  const other = await theirs.undo({ scope: 'database', force: true });
  assert.equal(other.undone.own, true);
  assert.equal(other.tasks[0].notes, '');
});
