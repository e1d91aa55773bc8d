// Interoperability test of HTTP: the official TypeScript MCP SDK client is
// connected to `toolhost serve --listen 127.0.0.1:0 CONFIG` over streamable
// HTTP: calls, a call the client cancels, a reload's notification on the
// session's GET stream, and the end of the session.
//
//   TOOLHOST_BIN=/path/to/toolhost node --test http.test.mjs
//
// The Go test interop_test.go builds the binary and runs this file.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { Events, eventually, okText, startHTTPServe } from './support.mjs';

const bin = process.env.TOOLHOST_BIN;
const CALL_TIMEOUT = { timeout: 20_000 };

const hello = `tool "hello" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello \${param.name}" }
}
`;
const slow = `tool "slow" {
  description = "marks that it started, then sleeps"
  param "marker" { type = string }
  exec {
    command = ["sh", "-c", "touch \\"$1\\" && sleep 30", "slow", param.marker]
    timeout = "60s"
  }
}
`;
const added = `tool "added" {
  description = "there after a reload"
  template { text = "added" }
}
`;

describe('toolhost over streamable HTTP with the official TypeScript SDK client', { timeout: 90_000 }, () => {
  let dir;
  let cfg;
  let server;
  let serverExit;
  let transport;
  let client;
  const stderr = new Events(); // the server's log lines
  const transportErrors = [];
  const listChanged = new Events();

  before(async () => {
    assert.ok(bin, 'set TOOLHOST_BIN to the toolhost binary (interop_test.go does this)');
    assert.ok(existsSync(bin), `TOOLHOST_BIN ${bin} does not exist`);
    dir = await mkdtemp(join(tmpdir(), 'toolhost-http-'));
    cfg = join(dir, 'tools.hcl');
    await writeFile(cfg, hello + slow);

    let url;
    ({ server, exit: serverExit, url } = await startHTTPServe(bin, cfg, dir, stderr));

    transport = new StreamableHTTPClientTransport(new URL(url));
    transport.onerror = (err) => transportErrors.push(err.message);
    client = new Client({ name: 'toolhost-http-interop', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => listChanged.push(n));
    await client.connect(transport);
  });

  after(async () => {
    try {
      await client?.close();
    } catch {
      // reported by the close test
    }
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await serverExit;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
    if (transportErrors.length > 0 || process.exitCode) {
      console.log('---- toolhost stderr ----\n' + stderr.items.join('\n') + '\n---- end of toolhost stderr ----');
    }
  });

  test('a session: initialize, tools/list, a call', async () => {
    assert.ok(transport.sessionId, 'the server gave the session an Mcp-Session-Id');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['hello', 'slow']);
    assert.equal(okText(await client.callTool({ name: 'hello', arguments: { name: '世界' } }, undefined, CALL_TIMEOUT)), 'hello 世界');
  });

  test('a call the client cancels ends, and the stream is not retried in vain', async () => {
    const mark = stderr.mark();
    const marker = join(dir, 'started');
    const ac = new AbortController();
    const call = client.callTool({ name: 'slow', arguments: { marker } }, undefined, { signal: ac.signal, timeout: 20_000 });
    await eventually('the call to start', () => assert.ok(existsSync(marker)));
    ac.abort('the user pressed stop');
    await assert.rejects(call, /pressed stop/);
    // The client resumes the stream of the cancelled call (it had an event
    // ID); the server says there is nothing left to get.
    await stderr.waitFor('the resumption of the cancelled stream', mark, (l) => l.includes('method=GET') && l.includes('status=204'));
    const after = stderr.mark();
    // Another call works, and no reconnection failed on the way.
    assert.equal(okText(await client.callTool({ name: 'hello', arguments: { name: 'again' } }, undefined, CALL_TIMEOUT)), 'hello again');
    assert.deepEqual(transportErrors, []);
    assert.equal(stderr.since(after).filter((l) => l.includes('status=409')).length, 0, 'no GET refused with 409');
  });

  test("a reload's tools/list_changed reaches the client on its GET stream", async () => {
    const mark = listChanged.mark();
    await writeFile(cfg, hello + slow + added);
    await listChanged.waitFor('notifications/tools/list_changed', mark);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'added'), `tools/list has "added": ${tools.map((t) => t.name)}`);
    assert.equal(okText(await client.callTool({ name: 'added', arguments: {} }, undefined, CALL_TIMEOUT)), 'added');
  });

  test('terminating the session ends it on the server', async () => {
    const mark = stderr.mark();
    await transport.terminateSession();
    await client.close();
    await stderr.waitFor('the DELETE of the session', mark, (l) => l.includes('method=DELETE') && l.includes('status=204'));
    assert.deepEqual(transportErrors.filter((m) => !m.includes('AbortError')), []);
  });
});
