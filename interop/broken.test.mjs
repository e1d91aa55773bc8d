// Interoperability test of a config with errors at the start: the official
// TypeScript MCP SDK client connects to `toolhost serve CONFIG` over stdio,
// and to `toolhost serve --listen 127.0.0.1:0 CONFIG` over streamable HTTP,
// while CONFIG has an error. It is told the error (place and fix), lists no
// tools, and once the test saves CONFIG without the error it gets
// tools/list_changed and the tools. An editor then shows why no tools are
// there, where a server that exited shows "Connection closed".
//
//   TOOLHOST_BIN=/path/to/toolhost node --test broken.test.mjs
//
// The Go test interop_test.go builds the binary and runs this file. Every
// wait is for an event or a state, with a deadline; none is a fixed sleep.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { Events, closeAndReport, eventually, okText, startHTTPServe } from './support.mjs';

const bin = process.env.TOOLHOST_BIN;

const CALL_TIMEOUT = { timeout: 20_000 };

// A tool with an argument tool blocks do not take, on line 4, column 3.
const broken = `tool "alpha" {
  description = "a"
  template { text = "I am alpha" }
  bogus = 1
}
`;
const fixed = broken.replace('  bogus = 1\n', '');
const theError = /tools\.hcl:4:3: error: Unsupported argument: An argument named "bogus" is not expected here\./;

/** Saves content to path as an editor that saves by rename does. */
async function save(path, content) {
  const tmp = path + '.tmp~';
  await writeFile(tmp, content);
  await rename(tmp, path);
}

/**
 * The checks both transports share: connect() connects the client; the
 * client is told the error and lists no tools, and after a save that fixes
 * the config it gets list_changed and the tool.
 */
function brokenStartTests(state) {
  test('initialize is answered, and its instructions say the config has errors', () => {
    assert.match(state.client.getInstructions() ?? '', /toolhost could not load its config: 1 error\./);
    assert.equal(state.client.getServerCapabilities()?.tools?.listChanged, true, 'tools.listChanged capability');
  });

  test('the client is told the error, with its place and fix, at level error', async () => {
    // Told at once over stdio; over HTTP with the first request after
    // initialize, in its response stream.
    const { tools } = await state.client.listTools();
    assert.deepEqual(tools, [], 'no tools while the config has errors');
    const msg = await state.logs.waitFor('a notifications/message at level error', 0, (p) => p.level === 'error');
    assert.match(String(msg.data), theError);
  });

  test('a save that fixes the config: list_changed, then the tool is listed and answers', async () => {
    const mark = state.listChanged.mark();
    await save(state.cfg, fixed);
    await state.listChanged.waitFor('notifications/tools/list_changed', mark);
    await eventually('tools/list to show alpha', async () => {
      assert.deepEqual((await state.client.listTools()).tools.map((t) => t.name), ['alpha']);
    });
    assert.equal(okText(await state.client.callTool({ name: 'alpha', arguments: {} }, undefined, CALL_TIMEOUT)), 'I am alpha');
  });
}

/** A client with the notification logs the tests wait on. */
function newClient(state, name) {
  state.client = new Client({ name, version: '1.0.0' });
  state.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => state.listChanged.push(n));
  state.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => state.logs.push(n.params));
}

function newState() {
  return { listChanged: new Events(), logs: new Events(), stderr: '' };
}

describe('a config with errors at the start, over stdio, seen by the official TypeScript SDK client', { timeout: 90_000 }, () => {
  const state = newState();
  let dir;

  before(async () => {
    assert.ok(bin, 'set TOOLHOST_BIN to the toolhost binary (interop_test.go does this)');
    assert.ok(existsSync(bin), `TOOLHOST_BIN ${bin} does not exist`);
    dir = await mkdtemp(join(tmpdir(), 'toolhost-broken-'));
    state.cfg = join(dir, 'tools.hcl');
    await writeFile(state.cfg, broken);
    const transport = new StdioClientTransport({ command: bin, args: ['serve', state.cfg], cwd: dir, stderr: 'pipe' });
    transport.stderr.on('data', (chunk) => {
      state.stderr += chunk.toString('utf8');
    });
    newClient(state, 'toolhost-broken-interop');
    await state.client.connect(transport);
  });

  after(() => closeAndReport(state.client, dir, state.stderr));

  brokenStartTests(state);
});

describe('a config with errors at the start, over streamable HTTP, seen by the official TypeScript SDK client', { timeout: 90_000 }, () => {
  const state = newState();
  const stderr = new Events(); // the server's log lines
  let dir;
  let server;
  let serverExit;
  let base;

  before(async () => {
    assert.ok(bin, 'set TOOLHOST_BIN to the toolhost binary (interop_test.go does this)');
    assert.ok(existsSync(bin), `TOOLHOST_BIN ${bin} does not exist`);
    dir = await mkdtemp(join(tmpdir(), 'toolhost-broken-http-'));
    state.cfg = join(dir, 'tools.hcl');
    await writeFile(state.cfg, broken);
    let url;
    ({ server, exit: serverExit, url } = await startHTTPServe(bin, state.cfg, dir, stderr));
    base = new URL('/', url);
    newClient(state, 'toolhost-broken-http-interop');
    await state.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  });

  after(async () => {
    try {
      await state.client?.close();
    } catch {
      // reported by the tests
    }
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await serverExit;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
    if (process.exitCode) {
      console.log('---- toolhost stderr ----\n' + stderr.items.join('\n') + '\n---- end of toolhost stderr ----');
    }
  });

  test('/readyz is 503 with the reason while no valid config has loaded; /healthz is ok', async () => {
    const ready = await fetch(new URL('/readyz', base));
    assert.equal(ready.status, 503);
    assert.match((await ready.json()).status, /the config has errors and no valid config has loaded yet/);
    assert.equal((await fetch(new URL('/healthz', base))).status, 200);
  });

  brokenStartTests(state);

  test('/readyz is 200 once the config has loaded', async () => {
    assert.equal((await fetch(new URL('/readyz', base))).status, 200);
  });
});
