import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { InvalidParamsError } from '../index.js';
import { connectForTest, tempDbPath, serverPath } from '../test-support/harness.js';

const WORDS = 'Call the bank +money due:fri pri:H';

test('parse() reads the command line\'s words; quick add stores the task `taskline add` makes', async (t) => {
  const client = await connectForTest(t);
  const params = await client.parse(WORDS);
  assert.deepEqual(Object.keys(params).sort(), ['due', 'priority', 'tags', 'title']);
  const task = await client.create(params);
  assert.deepEqual([task.title, task.tags, task.priority], ['Call the bank', ['money'], 3]);

  const db = await tempDbPath(t);
  execFileSync(serverPath, ['add', '--db', db, ...WORDS.split(' ')]);
  const [added] = JSON.parse(execFileSync(serverPath, ['list', '--db', db, '--json'], { encoding: 'utf8' }));
  assert.deepEqual([added.title, added.tags, added.priority, added.due], [task.title, task.tags, task.priority, task.due]);

  const changes = await client.parse('-money +bank status:done', { id: task.id });
  assert.deepEqual(changes, { done: true, tags: ['bank'] });
  assert.equal((await client.get(task.id)).version, 1, 'parse writes nothing');

  const error = await client.parse('Call re:bank').then(() => assert.fail('parsed'), (e) => e);
  assert.ok(error instanceof InvalidParamsError, `got ${error.name}`);
  assert.equal(error.field, 'text');
  assert.match(error.data.reason, /^re:bank: re is not one of /);
});
