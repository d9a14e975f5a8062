import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectForTest, nextEvent, tempDbPath } from '../test-support/harness.js';

test('remindAt is written, read and cleared', async (t) => {
  const client = await connectForTest(t);
  assert.equal(client.capabilities.notifications.remind, false);
  const task = await client.create({ title: 'call the garage', remindAt: '2999-01-01T09:00:00+01:00' });
  assert.equal(task.remindAt, '2999-01-01T09:00:00+01:00');
  assert.equal((await client.update(task.id, { remindAt: null })).remindAt, null);
});

test('onRemind gets the reminders that passed unsent, and those that come due, once', async (t) => {
  const db = await tempDbPath(t);
  const writer = await connectForTest(t, { db });
  const missed = await writer.create({ title: 'missed', remindAt: '2000-01-01T00:00:00Z' });
  await writer.close();

  const reminders = [];
  const client = await connectForTest(t, { db, onRemind: (params) => reminders.push(params.tasks.map((task) => task.id)) });
  assert.equal(client.capabilities.notifications.remind, true);
  const soon = await client.create({ title: 'soon', remindAt: new Date(Date.now() + 1000).toISOString() });
  while (reminders.length < 2) await nextEvent(client, 'remind', 10_000);
  await client.update(soon.id, { title: 'renamed' });
  await client.fetch(); // a repeated reminder would have come before this answer
  assert.deepEqual(reminders, [[missed.id], [soon.id]]);
});

test('without reminders: true there are no remind events', async (t) => {
  const client = await connectForTest(t);
  const events = [];
  client.on('remind', (params) => events.push(params));
  await client.create({ title: 'past', remindAt: '2000-01-01' });
  await client.fetch();
  await assert.rejects(nextEvent(client, 'remind', 1000));
  assert.deepEqual(events, []);
});
