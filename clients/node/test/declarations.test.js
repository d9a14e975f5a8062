// The declarations in index.d.ts are checked against the protocol's JSON Schema,
// so that neither can change without the other: every member of what the client
// reads (the task, a fetch page, a change, a changes page, the notifications, the
// initialize result) is declared with a compatible type and the same optionality,
// and every declared member is in the schema.
//
// There is no TypeScript compiler here, so index.d.ts is read by a small reader
// of the subset it uses for these types: `export interface Name { member?: Type; }`
// blocks and `export type Name = Type;` aliases, where a Type is a union (`|`) of
// `string`, `number`, `boolean`, `null`, string and number literals, `T[]`,
// `(T & {})`, `Record<string, unknown>` (free-form data), a declared name, or an
// inline `{ member: Type; … }` object.
// Comments are removed first. A construct outside this subset fails the test.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const declarations = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');
const schema = JSON.parse(readFileSync(new URL('../../../protocol/schema/taskline.schema.json', import.meta.url), 'utf8'));

const PAIRS = {
  Task: 'task',
  Recurrence: 'recurrence',
  Annotation: 'annotation',
  NewAnnotation: 'newAnnotation',
  FetchResult: 'tasksFetchResult',
  TaskChange: 'changeMembers',
  ChangesPage: 'tasksChangesResult',
  DidChangeParams: 'tasksDidChangeParams',
  DidMissChangesParams: 'tasksDidMissChangesParams',
  RemindParams: 'tasksRemindParams',
  ChangeGroup: 'changeGroup',
  InitializeResult: 'initializeResult',
};

// --- the reader of index.d.ts ---

function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
}

/** The text between the brace at `open` and its matching closing brace. */
function braced(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '{') depth += 1;
    if (text[i] === '}' && (depth -= 1) === 0) return text.slice(open + 1, i);
  }
  throw new Error('unbalanced braces');
}

/** Splits `text` at `separator` characters that are not nested in (), {} or []. */
function splitTop(text, separators) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    if ('({['.includes(text[i])) depth += 1;
    else if (')}]'.includes(text[i])) depth -= 1;
    else if (depth === 0 && separators.includes(text[i])) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** The members of an object type's body: name -> { type, optional }. */
function readMembers(body) {
  const members = {};
  for (const member of splitTop(body, ';,')) {
    const match = /^(\w+)(\??):\s*([\s\S]+)$/.exec(member);
    if (!match) throw new Error(`not a member this reader knows: ${member}`);
    members[match[1]] = { type: match[3].trim(), optional: match[2] === '?' };
  }
  return members;
}

function readDeclarations(text) {
  const source = withoutComments(text);
  const interfaces = {};
  for (const match of source.matchAll(/export interface (\w+)(?: extends [^{]+)? \{/g)) {
    interfaces[match[1]] = braced(source, match.index + match[0].length - 1); // read when checked
  }
  const aliases = {};
  for (const match of source.matchAll(/export type (\w+) =([^;]+);/g)) aliases[match[1]] = match[2].trim();
  return { interfaces, aliases };
}

const { interfaces, aliases } = readDeclarations(declarations);

/** The JSON types a declared type allows, named as schemaKinds names them. */
function declaredKinds(type) {
  const options = splitTop(type, '|');
  if (options.length > 1) return new Set(options.flatMap((option) => [...declaredKinds(option)]));
  const only = options[0];
  if (/^\(.*\)$/s.test(only)) {
    const [first] = splitTop(only.slice(1, -1), '&'); // `(string & {})`: a string
    return declaredKinds(first);
  }
  if (only.endsWith('[]')) return new Set([`array of ${[...declaredKinds(only.slice(0, -2))].sort().join('|')}`]);
  if (only.startsWith('{')) return new Set([{ members: readMembers(braced(only, 0)) }]);
  if (/^'.*'$/.test(only)) return new Set(['string']);
  if (/^-?\d+$/.test(only)) return new Set(['number']);
  if (['string', 'number', 'boolean', 'null'].includes(only)) return new Set([only]);
  if (only === 'Record<string, unknown>') return new Set(['object']);
  if (aliases[only]) return declaredKinds(aliases[only]);
  if (interfaces[only]) return new Set([`object ${only}`]);
  throw new Error(`a type this reader does not know: ${only}`);
}

// --- the schema ---

const definition = (name) => schema.$defs[name];
const isAlias = (node) => '$ref' in node && !('type' in node) && !('enum' in node) && !('const' in node);

function target(node) {
  let name = node.$ref.split('/').at(-1);
  while (isAlias(definition(name))) name = definition(name).$ref.split('/').at(-1);
  return name;
}

const resolve = (node) => (isAlias(node) ? definition(target(node)) : node);
const jsonType = (value) => (value === null ? 'null' : typeof value === 'boolean' ? 'boolean' : typeof value);

/** The JSON types a schema node allows (integer as number, as TypeScript has it). */
function schemaKinds(node) {
  // An object with no listed members is free-form data (a task's `meta`).
  if (resolve(node).type === 'object' && !resolve(node).properties) return new Set(['object']);
  if (isAlias(node) && resolve(node).type === 'object') return new Set([`object ${target(node)}`]);
  const resolved = resolve(node);
  if (resolved.anyOf) return new Set(resolved.anyOf.flatMap((option) => [...schemaKinds(option)]));
  if (resolved.enum) return new Set(resolved.enum.map(jsonType));
  if ('const' in resolved) return new Set([jsonType(resolved.const)]);
  if (resolved.type === 'object') return new Set([{ schema: resolved }]);
  return new Set([resolved.type].flat().map((kind) => {
    if (kind === 'integer') return 'number';
    if (kind === 'array') return `array of ${[...schemaKinds(resolved.items)].sort().join('|')}`;
    return kind;
  }));
}

/** Differences between a declared object type and a schema object, as readable lines. */
function compare(path, members, node) {
  const object = resolve(node);
  const required = new Set(object.required ?? []);
  const problems = [];
  for (const name of Object.keys(object.properties)) {
    if (!(name in members)) problems.push(`${path}.${name}: in the schema, not declared`);
  }
  for (const [name, { type, optional }] of Object.entries(members)) {
    const property = object.properties[name];
    if (!property) {
      problems.push(`${path}.${name}: declared, not in the schema`);
      continue;
    }
    if (optional === required.has(name)) problems.push(`${path}.${name}: optional is ${optional} in index.d.ts`);
    const declared = [...declaredKinds(type)];
    const defined = [...schemaKinds(property)];
    const inline = declared.find((kind) => kind.members);
    const inlineSchema = defined.find((kind) => kind.schema);
    if (inline || inlineSchema) {
      if (!(inline && inlineSchema)) problems.push(`${path}.${name}: an object on one side only`);
      else problems.push(...compare(`${path}.${name}`, inline.members, inlineSchema.schema));
      continue;
    }
    const want = defined.sort();
    const have = declared.map((kind) => kind.replace(/object (\w+)/, (_, n) => `object ${PAIRS[n] ?? n}`)).sort();
    if (JSON.stringify(want) !== JSON.stringify(have)) {
      problems.push(`${path}.${name}: index.d.ts has ${have.join(' | ')}, the schema ${want.join(' | ')}`);
    }
  }
  return problems;
}

for (const [declared, defined] of Object.entries(PAIRS)) {
  test(`index.d.ts ${declared} has exactly the members of the schema's ${defined}`, () => {
    assert.ok(interfaces[declared], `no interface ${declared} in index.d.ts`);
    assert.deepEqual(compare(declared, readMembers(interfaces[declared]), definition(defined)), []);
  });
}

test('the reader sees a member that is missing, surplus, mistyped or wrongly optional', () => {
  const drifted = readMembers('id: string; title: number; due?: string | null; colour: string');
  const problems = compare('Task', drifted, definition('task')).join('\n');
  for (const expected of ['Task.notes: in the schema', 'Task.title: index.d.ts has number', 'Task.due: optional', 'Task.colour: declared']) {
    assert.ok(problems.includes(expected), `${expected} not in:\n${problems}`);
  }
});
