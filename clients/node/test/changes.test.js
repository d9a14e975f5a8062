import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventTimeoutError, connectForTest, nextEvent, tempDbPath } from '../test-support/harness.js';

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

test('a change made by a second client reaches the first [expected failure: needs cross-process notifications]', async (t) => {
  const db = await tempDbPath(t);
  const watcher = await connectForTest(t, { db });
  const writer = await connectForTest(t, { db });
  const change = nextEvent(watcher, 'change', 1500);
  const task = await writer.create({ title: 'from elsewhere' });
  try {
    const [params] = await change;
    assert.equal(params.changes[0].id, task.id);
  } catch (error) {
    if (error instanceof EventTimeoutError) return; // the expected failure
    throw error;
  }
  assert.fail('cross-process notifications work now: turn this into an ordinary test');
});
