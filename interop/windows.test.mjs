// Interoperability test of the Windows binary: the official TypeScript MCP
// SDK client, on Linux, spawns `wine64 toolhost.exe serve CONFIG` and uses
// it as an editor on Windows would.
//
//   TOOLHOST_WIN_BIN=/path/to/toolhost.exe TOOLHOST_WINCHILD=/path/to/winchild.exe \
//   TOOLHOST_WINE64=/usr/lib/wine/wine64 node --test windows.test.mjs
//
// interop_test.go builds both .exe files (GOOS=windows) and runs this file
// when wine is set up (WINEPREFIX, see .ci/wine/setup.sh). winchild.exe
// (testdata/winchild) is the exec tool's command: it starts a copy of
// itself that sleeps, and writes that child's pid to a file; after the
// client cancels the call, the child must be gone, which a second run of
// winchild.exe ("alive PID") tells. Every wait is for an event or a state,
// with a deadline; none is a fixed sleep.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { Events, closeAndReport, eventually, okText } from './support.mjs';

const bin = process.env.TOOLHOST_WIN_BIN;
const winchild = process.env.TOOLHOST_WINCHILD;
const wine64 = process.env.TOOLHOST_WINE64 ?? '/usr/lib/wine/wine64';

// Under wine every Windows process start costs a little: deadlines are
// generous.
const CALL_TIMEOUT = { timeout: 60_000 };
const GONE_MS = 30_000;

/** The path as a Windows program sees it under wine: drive Z: is /. */
const winPath = (p) => 'Z:' + p.replaceAll('/', '\\');

/** A string as an HCL quoted string. */
const hclString = (s) => JSON.stringify(s).replaceAll('${', '$${').replaceAll('%{', '%%{');

/** The config, with the tool "later" or without it. */
function config(pidFile, withLater) {
  // The program's path is written with slashes, as a Windows user may
  // write it too; the pid file's with backslashes.
  const prog = 'Z:' + winchild;
  let src = `
tool "greet" {
  description = "greets"
  param "name" { type = string }
  template { text = "hello \${param.name} from Windows" }
}

tool "spawn" {
  description = "starts a child that would outlive it"
  exec {
    command = [${hclString(prog)}, "parent", ${hclString(winPath(pidFile))}]
    timeout = "5m"
  }
}

resource "notes" {
  uri       = "file:///notes/readme.txt"
  mime_type = "text/plain"
  file      = "notes/readme.txt"
}
`;
  if (withLater) {
    src += `
tool "later" {
  description = "added by an edit"
  template { text = "here" }
}
`;
  }
  return src;
}

const run = promisify(execFile);

/** Whether the Windows process pid runs, asked of winchild.exe under wine. */
async function alive(pid) {
  const { stdout } = await run(wine64, [winchild, 'alive', String(pid)], { env: process.env });
  const word = stdout.trim();
  assert.ok(word === 'alive' || word === 'gone', `winchild alive said ${JSON.stringify(stdout)}`);
  return word === 'alive';
}

describe('toolhost.exe under wine with the official TypeScript SDK client', { timeout: 240_000 }, () => {
  let dir;
  let cfg;
  let pidFile;
  let transport;
  let client;
  let stderr = '';
  const listChanged = new Events();

  before(async () => {
    assert.ok(bin && existsSync(bin), `set TOOLHOST_WIN_BIN to toolhost.exe (interop_test.go does this), got ${bin}`);
    assert.ok(winchild && existsSync(winchild), `set TOOLHOST_WINCHILD to winchild.exe, got ${winchild}`);

    dir = await mkdtemp(join(tmpdir(), 'toolhost-wine-'));
    cfg = join(dir, 'tools.hcl');
    pidFile = join(dir, 'child.pid');
    await mkdir(join(dir, 'notes'));
    await writeFile(join(dir, 'notes', 'readme.txt'), 'notes read by toolhost.exe\r\n');
    await writeFile(cfg, config(pidFile, false));

    transport = new StdioClientTransport({
      command: wine64,
      args: [bin, 'serve', winPath(cfg)],
      // wine needs its prefix and settings (WINEPREFIX, WINEDEBUG), which
      // the SDK's default environment leaves out.
      env: { ...process.env },
      cwd: dir,
      stderr: 'pipe',
    });
    transport.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'toolhost-wine-interop', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => listChanged.push(n));
    await client.connect(transport);
  });

  after(() => closeAndReport(client, dir, stderr, 'toolhost.exe'));

  test('tools/list shows the tools; a template tool answers', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['greet', 'spawn']);
    const res = await client.callTool({ name: 'greet', arguments: { name: '世界' } }, undefined, CALL_TIMEOUT);
    assert.equal(okText(res), 'hello 世界 from Windows');
  });

  test('a file resource is read from the config directory', async () => {
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['file:///notes/readme.txt']);
    const { contents } = await client.readResource({ uri: 'file:///notes/readme.txt' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].text, 'notes read by toolhost.exe\r\n');
  });

  test('a cancelled exec call ends its command and the child it started', async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: 'spawn', arguments: {} }, undefined, { ...CALL_TIMEOUT, signal: abort.signal });
    call.catch(() => {}); // awaited below
    const pid = await Promise.race([
      eventually('the command writes its child\'s pid', async () => {
        const text = (await readFile(pidFile, 'utf8')).trim();
        assert.match(text, /^\d+$/);
        return Number(text);
      }, GONE_MS),
      call.then((res) => {
        throw new Error(`the call ended before its command wrote the pid: ${JSON.stringify(res)}`);
      }),
    ]);
    assert.equal(await alive(pid), true, `the child ${pid} runs while the call does`);
    abort.abort('the test cancels the call');
    await assert.rejects(call, /cancel|abort/i);
    await eventually(`the child ${pid} is gone after the cancellation`, async () => {
      assert.equal(await alive(pid), false, `child ${pid} still runs`);
    }, GONE_MS);
    // The server goes on serving.
    const res = await client.callTool({ name: 'greet', arguments: { name: 'again' } }, undefined, CALL_TIMEOUT);
    assert.equal(okText(res), 'hello again from Windows');
  });

  test('an edit of the config is seen: notifications/tools/list_changed', async () => {
    const mark = listChanged.mark();
    await writeFile(cfg, config(pidFile, true));
    await listChanged.waitFor('notifications/tools/list_changed', mark, () => true, GONE_MS);
    await eventually('tools/list shows the added tool', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['greet', 'later', 'spawn']);
    }, GONE_MS);
    const res = await client.callTool({ name: 'later', arguments: {} }, undefined, CALL_TIMEOUT);
    assert.equal(okText(res), 'here');
  });
});
