import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HistoryExpiredError,
  InvalidParamsError,
  TaskAlreadyExistsError,
  TaskNotFoundError,
  TasklineError,
  VersionConflictError,
} from '../index.js';
import { errorFromResponse } from '../lib/errors.js';
import { connectForTest, tempDbPath } from '../test-support/harness.js';

test('apply resolves with one settled result per operation', async (t) => {
  const client = await connectForTest(t);
  const doomed = await client.create({ title: 'doomed' });
  const results = await client.apply([
    { create: { id: 'one', title: 'first', tags: ['b', 'a'] } },
    { update: { id: 'one', changes: { done: true }, ifVersion: 1 } },
    { delete: { id: doomed.id, ifVersion: 1 } },
  ]);
  assert.deepEqual(results.map((result) => result.status), ['fulfilled', 'fulfilled', 'fulfilled']);
  const [created, updated, deleted] = results.map((result) => result.value);
  assert.deepEqual([created.id, created.tags, created.version], ['one', ['a', 'b'], 1]);
  assert.deepEqual([updated.done, updated.version], [true, 2]);
  assert.deepEqual(deleted, { id: doomed.id, deleted: true });
  assert.deepEqual(await client.get('one'), updated);
  await assert.rejects(client.get(doomed.id), TaskNotFoundError);
});

test('an atomic apply that fails applies nothing and rejects with the operation\'s error', async (t) => {
  const client = await connectForTest(t);
  const kept = await client.create({ title: 'kept' });
  const error = await client.apply([
    { create: { title: 'never made' } },
    { update: { id: kept.id, changes: { title: 'never renamed' } } },
    { delete: { id: 'no-such-task' } },
  ]).then(() => assert.fail('apply succeeded'), (rejection) => rejection);
  assert.ok(error instanceof TaskNotFoundError, error);
  assert.equal(error.operation, 2);
  assert.equal(error.id, 'no-such-task');
  assert.deepEqual((await client.fetch()).tasks, [kept]);
});

test('an atomic apply with a stale version rejects with VersionConflictError naming the operation', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'contested' });
  const current = await client.update(task.id, { title: 'moved on' });
  await assert.rejects(
    client.apply([{ create: { title: 'fine' } }, { update: { id: task.id, changes: { done: true }, ifVersion: 1 } }]),
    (error) => error instanceof VersionConflictError && error.operation === 1
      && error.currentTask.title === current.title,
  );
});

test('an atomic apply with bad params names the operation in field and operation', async (t) => {
  const client = await connectForTest(t);
  await assert.rejects(
    client.apply([{ create: { title: 'fine' } }, { update: { id: 'any', changes: { priority: 9 } } }]),
    (error) => error instanceof InvalidParamsError && error.operation === 1
      && error.field === 'operations[1].update.changes.priority',
  );
  await assert.rejects(
    client.apply([]),
    (error) => error instanceof InvalidParamsError && error.field === 'operations' && error.operation === undefined,
  );
  assert.deepEqual((await client.fetch()).tasks, []);
});

test('a non-atomic apply reports each failure and applies the rest', async (t) => {
  const client = await connectForTest(t);
  await client.create({ id: 'twin', title: 'twin' });
  const [made, duplicate, missing] = await client.apply([
    { create: { title: 'made' } },
    { create: { id: 'twin', title: 'again' } },
    { update: { id: 'no-such-task', changes: { done: true } } },
  ], { atomic: false });
  assert.equal(made.status, 'fulfilled');
  assert.equal(made.value.title, 'made');
  assert.equal(duplicate.status, 'rejected');
  assert.ok(duplicate.reason instanceof TaskAlreadyExistsError);
  assert.equal(duplicate.reason.id, 'twin');
  assert.ok(missing.reason instanceof TaskNotFoundError);
  assert.equal(missing.reason.operation, undefined);
  const titles = (await client.fetch()).tasks.map((task) => task.title).sort();
  assert.deepEqual(titles, ['made', 'twin']);
});

test('changes pages through the history, with tasks as they are now', async (t) => {
  const client = await connectForTest(t);
  const first = await client.create({ title: 'first' });
  const second = await client.create({ title: 'second' });
  const renamed = await client.update(first.id, { title: 'renamed' });
  await client.delete(second.id);

  const page = await client.changes(0, { limit: 3 });
  assert.equal(page.hasMore, true);
  assert.deepEqual(page.changes.map(({ kind, id, version, task }) => ({ kind, id, version, task })), [
    { kind: 'created', id: first.id, version: 1, task: renamed },
    { kind: 'created', id: second.id, version: 1, task: undefined },
    { kind: 'updated', id: first.id, version: 2, task: renamed },
  ]);
  assert.equal(page.seq, page.changes[2].seq);
  const rest = await client.changes(page.seq);
  assert.deepEqual(rest.changes.map(({ kind, id }) => ({ kind, id })), [{ kind: 'deleted', id: second.id }]);
  assert.equal(rest.hasMore, false);
  assert.deepEqual(await client.changes(rest.seq), { changes: [], seq: rest.seq, hasMore: false });
});

test('changesSince yields every change after since, page by page', async (t) => {
  const client = await connectForTest(t);
  const tasks = [];
  for (let i = 0; i < 7; i += 1) tasks.push(await client.create({ title: `task ${i}` }));
  const everything = [];
  for await (const change of client.changesSince(0, { pageSize: 2 })) everything.push(change);
  assert.deepEqual(everything.map((change) => change.id), tasks.map((task) => task.id));
  const seqs = everything.map((change) => change.seq);
  assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]), `seq grows: ${seqs}`);
  const later = [];
  for await (const change of client.changesSince(seqs[3])) later.push(change.id);
  assert.deepEqual(later, tasks.slice(4).map((task) => task.id));
  for await (const change of client.changesSince(seqs[6])) assert.fail(`nothing after the last: ${change.seq}`);
});

test('a since ahead of the database rejects with InvalidParamsError on since', async (t) => {
  const client = await connectForTest(t);
  await client.create({ title: 'only one' });
  await assert.rejects(client.changes(1000), (error) => error instanceof InvalidParamsError && error.field === 'since');
});

test('an expired history rejects with HistoryExpiredError carrying oldestSeq', async (t) => {
  const db = await tempDbPath(t);
  const writer = await connectForTest(t, { db });
  for (let i = 0; i < 3; i += 1) await writer.create({ title: `task ${i}` });
  const { seq: newest } = await writer.changes(0);
  await writer.close();
  // --history-days 0 drops every change but the newest at start-up.
  const forgetful = await connectForTest(t, { db, args: ['--history-days', '0'] });
  const error = await forgetful.changes(0).then(() => assert.fail('changes succeeded'), (rejection) => rejection);
  assert.ok(error instanceof HistoryExpiredError && error instanceof TasklineError, error);
  assert.equal(error.code, 1005);
  assert.equal(error.oldestSeq, newest);
  assert.deepEqual((await forgetful.changes(error.oldestSeq - 1)).changes.map((change) => change.seq), [newest]);
  const made = await forgetful.create({ title: 'after the purge' });
  const kept = (await forgetful.changes(error.oldestSeq - 1)).changes.map((change) => change.task);
  assert.deepEqual(kept.map((task) => task.title), ['task 2', 'after the purge']);
  assert.deepEqual(kept[1], made);
});

test('HistoryExpiredError is made from code 1005', () => {
  const error = errorFromResponse({ code: 1005, message: 'History expired', data: { oldestSeq: 42 } });
  assert.ok(error instanceof HistoryExpiredError);
  assert.equal(error.oldestSeq, 42);
  assert.equal(HistoryExpiredError.code, 1005);
});
