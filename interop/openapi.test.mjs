// Tools made by `toolhost import openapi` from the OpenAPI Initiative's
// petstore, called by the official TypeScript MCP SDK client over stdio
// against a petstore on 127.0.0.1: the client checks each call's
// structuredContent against the tool's outputSchema, as it does for any
// tool that declares one, so a result the import describes wrongly
// fails here.
//
//   TOOLHOST_BIN=/path/to/toolhost node --test openapi.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const spec = fileURLToPath(new URL('../internal/openapi/testdata/petstore-3.0.yaml', import.meta.url));
const bin = process.env.TOOLHOST_BIN;
const CALL = { timeout: 20_000 };

const pets = [{ id: 1, name: 'Rex', tag: 'dog' }, { id: 2, name: 'Tom' }];
let upstream;
let dir;
let client;

before(async () => {
  upstream = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let body;
    if (url.pathname === '/pets') {
      body = url.searchParams.get('limit') === '1' ? pets.slice(0, 1) : pets;
    } else if (url.pathname === '/pets/2') {
      body = [pets[1]];
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 404, message: 'no such pet' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  dir = await mkdtemp(join(tmpdir(), 'toolhost-openapi-'));
  const config = join(dir, 'tools.hcl');
  execFileSync(bin, ['import', 'openapi', spec, '-o', config]);
  client = new Client({ name: 'openapi-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: bin,
    args: ['serve', '--watch=false', config],
    env: { ...process.env, SWAGGER_PETSTORE_BASE_URL: `http://127.0.0.1:${upstream.address().port}` },
    stderr: 'pipe',
  }));
});

after(async () => {
  await client?.close();
  await new Promise((resolve) => upstream?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the imported tools declare output schemas', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['create_pets', 'list_pets', 'show_pet_by_id']);
  for (const name of ['list_pets', 'show_pet_by_id']) {
    assert.equal(tools.find((t) => t.name === name).outputSchema?.type, 'object', `${name} has an outputSchema`);
  }
});

test('list_pets: structuredContent passes the client\'s outputSchema check', async () => {
  const res = await client.callTool({ name: 'list_pets', arguments: { limit: 1 } }, undefined, CALL);
  assert.ok(!res.isError, JSON.stringify(res.content));
  assert.deepEqual(res.structuredContent, { items: [pets[0]] });
});

test('show_pet_by_id: structuredContent passes the client\'s outputSchema check', async () => {
  const res = await client.callTool({ name: 'show_pet_by_id', arguments: { pet_id: '2' } }, undefined, CALL);
  assert.ok(!res.isError, JSON.stringify(res.content));
  assert.deepEqual(res.structuredContent, { items: [pets[1]] });
});

test('an upstream error is a tool error, without structuredContent', async () => {
  const res = await client.callTool({ name: 'show_pet_by_id', arguments: { pet_id: '9' } }, undefined, CALL);
  assert.equal(res.isError, true);
  assert.equal(res.structuredContent, undefined);
});
