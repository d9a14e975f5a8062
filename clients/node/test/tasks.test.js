import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskNotFoundError } from '../index.js';
import { connectForTest } from '../test-support/harness.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function createTitled(client, titles) {
  const tasks = [];
  for (const title of titles) tasks.push(await client.create({ title }));
  return tasks;
}

/** The default fetch order: oldest first, tasks created in the same millisecond by id. */
function oldestFirst(tasks) {
  const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return [...tasks].sort((a, b) => byCodePoint(a.createdAt, b.createdAt) || byCodePoint(a.id, b.id));
}

const ids = (tasks) => tasks.map((task) => task.id);

test('create fills in the defaults', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'Write the client' });
  assert.match(task.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(task.title, 'Write the client');
  assert.equal(task.notes, '');
  assert.equal(task.done, false);
  assert.equal(task.priority, 0);
  assert.deepEqual(task.tags, []);
  assert.equal(task.due, null);
  assert.match(task.createdAt, TIMESTAMP);
  assert.equal(task.updatedAt, task.createdAt);
  assert.equal(task.completedAt, null);
  assert.equal(task.version, 1);
});

test('create keeps every field given, with a client-chosen id', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({
    id: 'my-id',
    title: 'Everything',
    notes: 'line one\nline two',
    done: true,
    priority: 3,
    tags: ['work', 'docs', 'work'],
    due: '2026-12-01T17:00:00+01:00',
  });
  assert.equal(task.id, 'my-id');
  assert.equal(task.notes, 'line one\nline two');
  assert.equal(task.done, true);
  assert.equal(task.priority, 3);
  assert.deepEqual(task.tags, ['docs', 'work']);
  assert.equal(task.due, '2026-12-01T17:00:00+01:00');
  assert.equal(task.completedAt, task.createdAt);
});

test('a recurring task makes its next occurrence when done', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'Stand-up', due: '2026-12-04', recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,FR' } });
  assert.deepEqual(task.recurrence, { rule: 'FREQ=WEEKLY;BYDAY=MO,FR' });
  assert.equal(task.seriesId, task.id);
  await client.update(task.id, { done: true });
  const { tasks } = await client.fetch({ filter: { done: false } });
  assert.deepEqual(tasks.map((next) => [next.due, next.seriesId]), [['2026-12-07', task.id]]);
  const ended = await client.update(tasks[0].id, { recurrence: null });
  assert.equal(ended.recurrence, null);
  assert.equal(ended.seriesId, task.id);
});

test('get returns the stored task', async (t) => {
  const client = await connectForTest(t);
  const created = await client.create({ title: 'Find me', tags: ['x'] });
  assert.deepEqual(await client.get(created.id), created);
});

test('fetch returns tasks oldest first, filtered, sorted and counted', async (t) => {
  const client = await connectForTest(t);
  const [a, b, c] = await createTitled(client, ['alpha', 'beta', 'gamma']);
  await client.update(b.id, { done: true, tags: ['home'], priority: 2 });
  await client.update(c.id, { notes: 'About ALPHA too', priority: 3 });
  const [first, second, third] = ids(oldestFirst([a, b, c]));

  const all = await client.fetch();
  assert.deepEqual(ids(all.tasks), [first, second, third]);
  assert.equal(all.nextCursor, null);
  assert.equal('total' in all, false);

  const done = await client.fetch({ filter: { done: true } });
  assert.deepEqual(ids(done.tasks), [b.id]);
  const tagged = await client.fetch({ filter: { tags: ['home'] } });
  assert.deepEqual(ids(tagged.tasks), [b.id]);
  const text = await client.fetch({ filter: { text: 'alpha' } });
  assert.deepEqual(ids(text.tasks), ids(oldestFirst([a, c])));

  const byPriority = await client.fetch({ sort: [{ field: 'priority', order: 'desc' }] });
  assert.deepEqual(ids(byPriority.tasks), [c.id, b.id, a.id]);

  const firstPage = await client.fetch({ limit: 2, includeTotal: true });
  assert.equal(firstPage.total, 3);
  assert.deepEqual(ids(firstPage.tasks), [first, second]);
  assert.equal(typeof firstPage.nextCursor, 'string');
  const secondPage = await client.fetch({ limit: 2, cursor: firstPage.nextCursor });
  assert.deepEqual(ids(secondPage.tasks), [third]);
  assert.equal(secondPage.nextCursor, null);
});

test('update changes fields, bumps the version and honours ifVersion', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'Draft', due: '2026-12-01' });
  const updated = await client.update(task.id, { title: 'Final', done: true, due: null }, { ifVersion: 1 });
  assert.equal(updated.title, 'Final');
  assert.equal(updated.done, true);
  assert.equal(updated.due, null);
  assert.equal(updated.version, 2);
  assert.match(updated.completedAt, TIMESTAMP);

  const reopened = await client.update(task.id, { done: false });
  assert.equal(reopened.completedAt, null);
  assert.equal(reopened.version, 3);
});

test('an update that changes nothing leaves the version alone', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'Same' });
  assert.deepEqual(await client.update(task.id, {}), task);
  assert.deepEqual(await client.update(task.id, { title: 'Same' }), task);
});

test('delete removes the task', async (t) => {
  const client = await connectForTest(t);
  const task = await client.create({ title: 'Doomed' });
  assert.deepEqual(await client.delete(task.id, { ifVersion: 1 }), { id: task.id, deleted: true });
  await assert.rejects(client.get(task.id), TaskNotFoundError);
});

test('the tasks() iterator pages through every task with cursors, in order', async (t) => {
  const client = await connectForTest(t);
  const created = await createTitled(client, Array.from({ length: 25 }, (_, i) => `task ${i}`));
  const seen = [];
  for await (const task of client.tasks({ pageSize: 10 })) seen.push(task.id);
  assert.deepEqual(seen, ids(oldestFirst(created)));
});

test('the tasks() iterator applies the filter and sort', async (t) => {
  const client = await connectForTest(t);
  const created = await createTitled(client, ['b', 'a', 'c', 'd']);
  await client.update(created[3].id, { done: true });
  const titles = [];
  for await (const task of client.tasks({ filter: { done: false }, sort: [{ field: 'title' }], pageSize: 2 })) {
    titles.push(task.title);
  }
  assert.deepEqual(titles, ['a', 'b', 'c']);
});

test('the tasks() iterator yields nothing for an empty store', async (t) => {
  const client = await connectForTest(t);
  const seen = [];
  for await (const task of client.tasks()) seen.push(task);
  assert.deepEqual(seen, []);
});
