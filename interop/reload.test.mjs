// Interoperability test of hot reload: the official TypeScript MCP SDK client
// is connected to `toolhost serve CONFIG` over stdio while the test edits
// CONFIG on disk, the ways editors save it.
//
//   TOOLHOST_BIN=/path/to/toolhost node --test reload.test.mjs
//
// The Go test interop_test.go builds the binary and runs this file. Every
// wait is for an event or a state, with a deadline; none is a fixed sleep.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { DEADLINE_MS, Events, closeAndReport, eventually, okText } from './support.mjs';

const bin = process.env.TOOLHOST_BIN;

const CALL_TIMEOUT = { timeout: 20_000 };

// ---- configs ----

/** A template tool that answers "I am NAME". */
function templateTool(name) {
  return `tool "${name}" {\n  description = "${name[0]}"\n  template { text = "I am ${name}" }\n}\n`;
}

const config = (...names) => names.map(templateTool).join('');

// A tool whose template uses a parameter it does not declare, and the same
// tool with the parameter declared.
const brokenLine = '  template { text = param.nope }';
const brokenTool = `tool "delta" {\n  description = "d"\n${brokenLine}\n}\n`;
const fixedTool =
  `tool "delta" {\n  description = "d"\n  param "nope" { default = "fixed" }\n${brokenLine}\n}\n`;

/** The 1-based line and column where needle starts in text. */
function position(text, needle) {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${JSON.stringify(needle)} is in the config`);
  const lines = text.slice(0, at).split('\n');
  return { line: lines.length, col: lines.at(-1).length + 1 };
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---- the suite ----

describe('toolhost hot reload seen by the official TypeScript SDK client', { timeout: 90_000 }, () => {
  let dir;
  let cfg;
  let transport;
  let client;
  let child;
  let childExit;
  let stderr = '';
  const listChanged = new Events();
  const logs = new Events();

  const toolNames = async () => (await client.listTools()).tools.map((t) => t.name).sort();
  const call = (name) => client.callTool({ name, arguments: {} }, undefined, CALL_TIMEOUT);

  /** Waits for a list_changed after mark, then for tools/list to show want. */
  async function converge(mark, want) {
    await listChanged.waitFor('notifications/tools/list_changed', mark);
    await eventually(`tools/list to show ${want}`, async () => {
      assert.deepEqual(await toolNames(), [...want].sort());
    });
  }

  before(async () => {
    assert.ok(bin, 'set TOOLHOST_BIN to the toolhost binary (interop_test.go does this)');
    assert.ok(existsSync(bin), `TOOLHOST_BIN ${bin} does not exist`);

    dir = await mkdtemp(join(tmpdir(), 'toolhost-reload-'));
    cfg = join(dir, 'tools.hcl');
    await writeFile(cfg, config('alpha', 'beta'));

    transport = new StdioClientTransport({
      command: bin,
      args: ['serve', cfg],
      cwd: dir,
      stderr: 'pipe',
    });
    transport.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
    });

    client = new Client({ name: 'toolhost-reload-interop', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => listChanged.push(n));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    await client.connect(transport);

    child = transport._process;
    assert.ok(child && typeof child.pid === 'number', 'child process started');
    childExit = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve({ code: child.exitCode, signal: child.signalCode });
      } else {
        child.once('exit', (code, signal) => resolve({ code, signal }));
      }
    });
  });

  after(() => closeAndReport(client, dir, stderr));

  test('the server offers tools with listChanged, alpha and beta to start with', async () => {
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true, 'tools.listChanged capability');
    assert.deepEqual(await toolNames(), ['alpha', 'beta']);
    assert.equal(okText(await call('alpha')), 'I am alpha');
  });

  test('in-place edit adding gamma: list_changed, then gamma is listed and callable', async () => {
    const mark = listChanged.mark();
    await writeFile(cfg, config('alpha', 'beta', 'gamma'));
    await converge(mark, ['alpha', 'beta', 'gamma']);
    assert.equal(okText(await call('gamma')), 'I am gamma');
  });

  test('save by rename removing beta: beta is gone and calling it is -32602', async () => {
    const mark = listChanged.mark();
    const tmp = join(dir, '.tools.hcl.swp~');
    await writeFile(tmp, config('alpha', 'gamma'));
    await rename(tmp, cfg);
    await converge(mark, ['alpha', 'gamma']);
    await assert.rejects(call('beta'), (err) => {
      assert.ok(err instanceof McpError, `expected McpError, got ${err?.stack ?? err}`);
      assert.equal(err.code, ErrorCode.InvalidParams, `error code (message: ${err.message})`);
      return true;
    });
    assert.equal(okText(await call('gamma')), 'I am gamma');
  });

  test('broken save: an error notification with file:line:col, and the old tools still work', async () => {
    const content = config('alpha', 'gamma') + brokenTool;
    const { line, col } = position(content, 'param.nope');
    const changedMark = listChanged.mark();
    const mark = logs.mark();
    await writeFile(cfg, content);

    const msg = await logs.waitFor('a notifications/message at level error', mark, (p) => p.level === 'error');
    const data = typeof msg.data === 'string' ? msg.data : JSON.stringify(msg.data);
    assert.match(
      data,
      new RegExp(`${escapeRe(basename(cfg))}:${line}:${col}: error: `),
      `the error names ${basename(cfg)}:${line}:${col}`,
    );
    assert.match(data, /nope/, 'the error names the undeclared parameter');

    // Nothing was applied: no list_changed, the same tools, and they answer.
    assert.deepEqual(listChanged.since(changedMark), [], 'no list_changed for a broken save');
    assert.deepEqual(await toolNames(), ['alpha', 'gamma']);
    assert.equal(okText(await call('alpha')), 'I am alpha');
  });

  test('fixing the file: list_changed again and the fixed tool works', async () => {
    const mark = listChanged.mark();
    const logMark = logs.mark();
    await writeFile(cfg, config('alpha', 'gamma') + fixedTool);
    await converge(mark, ['alpha', 'delta', 'gamma']);
    assert.equal(okText(await call('delta')), 'fixed');
    assert.equal(okText(await call('alpha')), 'I am alpha');
    assert.deepEqual(
      logs.since(logMark).filter((p) => p.level === 'error'),
      [],
      'no error notification for the good save',
    );
  });

  test('closing the client ends the server cleanly', async () => {
    const pid = child.pid;
    await client.close();
    const { code, signal } = await childExit;
    assert.equal(signal, null, `server was killed by ${signal}`);
    assert.equal(code, 0, 'server exit status');
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'process is gone');
  });
});
