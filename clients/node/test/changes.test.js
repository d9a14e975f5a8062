import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectForTest, nextEvent, tempDbPath } from '../test-support/harness.js';

function recordChanges(client) {
  const changes = [];
  client.on('change', (params) => {
    assert.equal(params.seq, params.changes.at(-1).seq, 'the notification seq is that of its last change');
    changes.push(...params.changes);
  });
  return changes;
}

test('create, update and delete each emit a change with kind, version and task', async (t) => {
  const client = await connectForTest(t);
  const changes = recordChanges(client);
  const created = await client.create({ title: 'watched' });
  const updated = await client.update(created.id, { done: true });
  await client.delete(created.id);
  await client.fetch(); // every notification precedes the response to a later request

  assert.deepEqual(changes.map(({ kind, id, version, task }) => ({ kind, id, version, task })), [
    { kind: 'created', id: created.id, version: 1, task: created },
    { kind: 'updated', id: created.id, version: 2, task: updated },
    { kind: 'deleted', id: created.id, version: 2, task: undefined },
  ]);
  const seqs = changes.map((change) => change.seq);
  assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]), `seq grows: ${seqs}`);
});

test('an update that changes nothing emits no change', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'still' });
  await client.fetch(); // lets the create's own notification pass first
  const changes = recordChanges(client);
  await client.update(task.id, { title: 'still' });
  await client.fetch();
  assert.deepEqual(changes, []);
});

test('notifications: false turns change events off', async (t) => {
  const client = await connectForTest(t, { notifications: false });
  assert.equal(client.capabilities.notifications.didChange, false);
  const changes = recordChanges(client);
  await client.create({ title: 'unseen' });
  await client.fetch();
  assert.deepEqual(changes, []);
});

test('seq keeps growing across server restarts on the same database', async (t) => {
  const db = await tempDbPath(t);
  const first = await connectForTest(t, { db });
  const [{ seq: before }] = (await Promise.all([nextEvent(first, 'change'), first.create({ title: 'one' })]))[0];
  await first.close();
  const second = await connectForTest(t, { db });
  const [{ seq: after }] = (await Promise.all([nextEvent(second, 'change'), second.create({ title: 'two' })]))[0];
  assert.ok(after > before, `${after} > ${before}`);
});

test('a change made by a second client reaches the first', async (t) => {
  const db = await tempDbPath(t);
  const watcher = await connectForTest(t, { db });
  const writer = await connectForTest(t, { db });
  const change = nextEvent(watcher, 'change', 5000);
  const task = await writer.create({ title: 'from elsewhere' });
  const [params] = await change;
  assert.deepEqual(params.changes.map(({ kind, id, version, task: after }) => ({ kind, id, version, task: after })), [
    { kind: 'created', id: task.id, version: 1, task },
  ]);
  assert.equal(params.seq, params.changes[0].seq);
});

test('the changes of an apply come in one notification, in order', async (t) => {
  const client = await connectForTest(t);
  const before = await client.create({ title: 'before' });
  await client.fetch(); // lets the create's own notification pass first
  const notifications = [];
  client.on('change', (params) => notifications.push(params));
  const results = await client.apply([
    { create: { title: 'a' } },
    { create: { title: 'b' } },
    { update: { id: before.id, changes: { done: true } } },
    { delete: { id: before.id } },
  ]);
  await client.fetch();
  assert.equal(notifications.length, 1, 'one notification');
  const [{ seq, changes }] = notifications;
  assert.deepEqual(changes.map(({ kind, task }) => ({ kind, task })), [
    { kind: 'created', task: results[0].value },
    { kind: 'created', task: results[1].value },
    { kind: 'updated', task: results[2].value },
    { kind: 'deleted', task: undefined },
  ]);
  assert.deepEqual(changes.map((change) => change.seq - changes[0].seq), [0, 1, 2, 3]);
  assert.equal(seq, changes[3].seq);
});

test('an apply made by a second client reaches the first in full', async (t) => {
  const db = await tempDbPath(t);
  const watcher = await connectForTest(t, { db });
  const writer = await connectForTest(t, { db });
  const changes = recordChanges(watcher);
  const results = await writer.apply(Array.from({ length: 5 }, (_, i) => ({ create: { title: `batch ${i}` } })));
  const deadline = Date.now() + 5000;
  while (changes.length < results.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.deepEqual(changes.map((change) => change.task), results.map((result) => result.value));
});

test('a server behind history another process pruned emits missedChanges, then changes again', async (t) => {
  const db = await tempDbPath(t);
  const watcher = await connectForTest(t, { db });
  const writer = await connectForTest(t, { db });
  const [{ seq: heard }] = (await Promise.all([nextEvent(watcher, 'change', 5000), writer.create({ title: 'heard' })]))[0];
  process.kill(watcher.pid, 'SIGSTOP');
  for (const title of ['pruned 1', 'pruned 2', 'kept']) await writer.create({ title });
  await new Promise((resolve) => setTimeout(resolve, 20)); // older than "now" for the pruner
  const pruner = await connectForTest(t, { db, args: ['--history-days', '0'] });
  await pruner.close();
  const missed = nextEvent(watcher, 'missedChanges', 5000);
  process.kill(watcher.pid, 'SIGCONT');
  const [params] = await missed;
  assert.deepEqual(params, { since: heard, seq: heard + 3, reason: 'historyExpired' });
  const change = nextEvent(watcher, 'change', 5000);
  await writer.create({ title: 'after' });
  const [{ seq }] = await change;
  assert.equal(seq, heard + 4);
});
