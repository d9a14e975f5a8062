// Shared set-up for the tests: the real server binary, temporary databases,
// and waiting for events. Kept outside test/ so `node --test test/` does not
// run it as a test file.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '../index.js';

export const serverPath = process.env.TASKLINE_SERVER
  || fileURLToPath(new URL('../../../.build/debug/taskline', import.meta.url));

/** A path for a database file in a fresh temporary folder that is removed after the test. */
export async function tempDbPath(t) {
  const folder = await mkdtemp(join(tmpdir(), 'taskline-node-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  return join(folder, 'tasks.sqlite');
}

/** Connects to the real server on `db` (default: a fresh temporary file); closed after the test. */
export async function connectForTest(t, { db, ...options } = {}) {
  const client = await connect({ server: serverPath, db: db ?? await tempDbPath(t), ...options });
  t.after(() => client.close());
  return client;
}

export class EventTimeoutError extends Error {}

/** Resolves with the arguments of the next `event`, or rejects with EventTimeoutError. */
export async function nextEvent(emitter, event, timeoutMs = 2000) {
  try {
    return await once(emitter, event, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    if (error.name !== 'AbortError') throw error;
    throw new EventTimeoutError(`no '${event}' event within ${timeoutMs} ms`);
  }
}

/** Runs `action` while the server process is stopped (SIGSTOP), so requests queue up unanswered. */
export async function whileServerStopped(client, action) {
  process.kill(client.pid, 'SIGSTOP');
  // SIGSTOP takes effect asynchronously: wait until the kernel reports the process stopped,
  // or a request sent at once could still be answered.
  await waitUntilStopped(client.pid);
  try {
    return await action();
  } finally {
    process.kill(client.pid, 'SIGCONT');
  }
}

async function waitUntilStopped(pid) {
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The state is the first field after the command name, which is in parentheses.
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`process ${pid} did not stop`);
}
