// Rich results and long-running tools, end to end with the official
// TypeScript MCP SDK client over stdio: images and sounds byte for byte,
// embedded resources and links, log notifications at the client's level,
// progress in order, confirmation through elicitation, completions, icons,
// resources served by backends, and cancellation killing the command.
//
//   TOOLHOST_BIN=/path/to/toolhost node --test rich.test.mjs
//
// The config is testdata/rich/tools.hcl; its HTTP upstream is a server on
// 127.0.0.1 started here.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const richDir = fileURLToPath(new URL('./testdata/rich/', import.meta.url));
const config = join(richDir, 'tools.hcl');
const bin = process.env.TOOLHOST_BIN;
const CALL = { timeout: 20_000 };

let upstream;
let upstreamURL;
let png;
let wav;
let report;

/** Polls check until it returns true, failing after ms. */
async function eventually(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Connects a client; capabilities and a setup hook are optional. */
async function connect({ capabilities = {}, setup } = {}) {
  const client = new Client({ name: 'rich-test', version: '1.0.0' }, { capabilities });
  if (setup) setup(client);
  const transport = new StdioClientTransport({
    command: bin,
    args: ['serve', '--watch=false', config],
    env: { ...process.env, RICH_UPSTREAM: upstreamURL },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

before(async () => {
  assert.ok(bin, 'TOOLHOST_BIN must name the toolhost binary');
  png = await readFile(join(richDir, 'red.png'));
  wav = await readFile(join(richDir, 'beep.wav'));
  report = await readFile(join(richDir, 'report.md'), 'utf8');
  upstream = createServer((req, res) => {
    if (req.url === '/red.png') {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end(png);
    } else if (req.url === '/picture.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ caption: '红色的点', png_base64: png.toString('base64') }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamURL = `http://127.0.0.1:${upstream.address().port}`;
});

after(async () => {
  await new Promise((r) => upstream.close(r));
});

describe('content', () => {
  let client;
  before(async () => {
    client = await connect();
  });
  after(async () => {
    await client.close();
  });

  test('an image from a file arrives byte for byte', async () => {
    const res = await client.callTool({ name: 'image_file', arguments: {} }, undefined, CALL);
    assert.equal(res.isError, undefined);
    assert.equal(res.content.length, 1);
    assert.equal(res.content[0].type, 'image');
    assert.equal(res.content[0].mimeType, 'image/png');
    assert.deepEqual(Buffer.from(res.content[0].data, 'base64'), png);
  });

  test('a sound from a file arrives byte for byte', async () => {
    const res = await client.callTool({ name: 'audio_file', arguments: {} }, undefined, CALL);
    assert.equal(res.content[0].type, 'audio');
    assert.equal(res.content[0].mimeType, 'audio/wav');
    assert.deepEqual(Buffer.from(res.content[0].data, 'base64'), wav);
  });

  test('an image/png HTTP response with no result block is image content', async () => {
    const res = await client.callTool({ name: 'image_http', arguments: {} }, undefined, CALL);
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.equal(res.content[0].type, 'image');
    assert.equal(res.content[0].mimeType, 'image/png');
    assert.deepEqual(Buffer.from(res.content[0].data, 'base64'), png);
  });

  test("a command's binary stdout is image content, its type sniffed", async () => {
    const res = await client.callTool({ name: 'image_exec', arguments: {} }, undefined, CALL);
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.equal(res.content[0].type, 'image');
    assert.equal(res.content[0].mimeType, 'image/png');
    assert.deepEqual(Buffer.from(res.content[0].data, 'base64'), png);
  });

  test('structured fields and an image from base64 in JSON, together', async () => {
    const res = await client.callTool({ name: 'image_json', arguments: {} }, undefined, CALL);
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(res.structuredContent, { caption: '红色的点' });
    assert.equal(res.content[0].type, 'text');
    assert.deepEqual(JSON.parse(res.content[0].text), { caption: '红色的点' });
    assert.equal(res.content[1].type, 'image');
    assert.deepEqual(Buffer.from(res.content[1].data, 'base64'), png);
  });

  test('text, an embedded resource and a resource link, in order', async () => {
    const res = await client.callTool({ name: 'embed_and_link', arguments: { who: 'Ann' } }, undefined, CALL);
    assert.equal(res.isError, undefined, JSON.stringify(res));
    assert.deepEqual(
      res.content.map((c) => c.type),
      ['text', 'resource', 'resource_link'],
    );
    assert.equal(res.content[0].text, 'Report for Ann:');
    assert.deepEqual(res.content[1].resource, { uri: 'docs://report', mimeType: 'text/markdown', text: report });
    assert.equal(res.content[2].uri, 'docs://report');
    assert.equal(res.content[2].name, 'report');
    assert.equal(res.content[2].mimeType, 'text/markdown');
    assert.equal(res.content[2].description, 'The report');
  });

  test('a prompt message carries an image, another an embedded resource', async () => {
    const res = await client.getPrompt({ name: 'look' });
    assert.equal(res.messages.length, 3);
    assert.equal(res.messages[0].content.type, 'image');
    assert.deepEqual(Buffer.from(res.messages[0].content.data, 'base64'), png);
    assert.equal(res.messages[1].content.type, 'resource');
    assert.equal(res.messages[1].content.resource.text, report);
    assert.equal(res.messages[2].content.text, 'What do you see?');
  });

  test('icons and annotations pass through to tools/list', async () => {
    const { tools } = await client.listTools();
    const t = tools.find((x) => x.name === 'with_icon');
    assert.equal(t.icons.length, 1);
    assert.equal(t.icons[0].src, `data:image/png;base64,${png.toString('base64')}`);
    assert.equal(t.icons[0].mimeType, 'image/png');
    assert.deepEqual(t.icons[0].sizes, ['1x1']);
    assert.deepEqual(t.annotations, {
      title: 'Iconic',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  test('resources served by template and exec backends', async () => {
    const hello = await client.readResource({ uri: 'gen://hello' });
    assert.deepEqual(hello.contents, [{ uri: 'gen://hello', mimeType: 'text/plain', text: 'generated HELLO' }]);
    const size = await client.readResource({ uri: 'gen://size/42' });
    assert.equal(size.contents[0].text, '42 bytes');
    // A variable is one argv element and may not smuggle in a flag: the
    // client's to correct, so invalid params, naming the variable.
    await assert.rejects(client.readResource({ uri: 'gen://size/--help' }), (e) => e.code === -32602 && /may not start with "-"/.test(e.message));
  });

  test('completions from an enum and from a directory', async () => {
    const city = await client.complete({ ref: { type: 'ref/prompt', name: 'travel' }, argument: { name: 'city', value: 'pa' } });
    assert.deepEqual(city.completion.values, ['paris', 'park city', 'Pasadena']);
    assert.equal(city.completion.total, 3);
    const notes = await client.complete({ ref: { type: 'ref/resource', uri: 'notes:///{path}' }, argument: { name: 'path', value: 'm' } });
    assert.deepEqual(notes.completion.values, ['meeting.md']);
    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'travel' }, argument: { name: 'x', value: '' } });
    assert.deepEqual(none.completion.values, []);
    // A prompt or template the config does not declare: invalid params, as the spec asks.
    await assert.rejects(
      client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } }),
      (e) => e.code === -32602 && /there is no prompt "nope"/.test(e.message),
    );
    await assert.rejects(
      client.complete({ ref: { type: 'ref/resource', uri: 'nope:///{x}' }, argument: { name: 'x', value: '' } }),
      (e) => e.code === -32602 && /there is no resource template "nope:\/\/\/\{x\}"/.test(e.message),
    );
  });

  test('a prompt argument outside its enum is refused', async () => {
    await assert.rejects(client.getPrompt({ name: 'travel', arguments: { city: 'oslo' } }), /must be one of/);
  });
});

describe('logs', () => {
  test("stderr lines arrive at the tool's level, filtered by the client's", async () => {
    const logs = [];
    const client = await connect({
      setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params)),
    });
    try {
      await client.setLoggingLevel('info');
      await client.callTool({ name: 'logs', arguments: {} }, undefined, CALL);
      await client.callTool({ name: 'debug_logs', arguments: {} }, undefined, CALL);
      await client.callTool({ name: 'http_logged', arguments: {} }, undefined, CALL);
      await eventually(() => logs.length >= 2, 5000, 'two info lines');
      assert.deepEqual(
        logs.map((l) => [l.level, l.logger, l.data]),
        [
          ['info', 'logs', 'one'],
          ['info', 'logs', 'two'],
        ],
      );

      await client.setLoggingLevel('debug');
      logs.length = 0;
      await client.callTool({ name: 'debug_logs', arguments: {} }, undefined, CALL);
      await client.callTool({ name: 'http_logged', arguments: {} }, undefined, CALL);
      await eventually(() => logs.length >= 2, 5000, 'the debug lines');
      assert.deepEqual(logs[0], { level: 'debug', logger: 'debug_logs', data: 'quiet' });
      assert.equal(logs[1].level, 'debug');
      assert.equal(logs[1].logger, 'http_logged');
      assert.match(logs[1].data, /^GET http:\/\/127\.0\.0\.1:\d+\/picture\.json: HTTP 200, \d+ bytes$/);
    } finally {
      await client.close();
    }
  });
});

describe('progress', () => {
  // Progress is recorded by a notification handler of the test's own: the
  // SDK's onprogress drops a notification that arrives in the same read as
  // the response (it handles notifications a microtask later, after the
  // response has removed the handler), which a loaded machine makes likely
  // for the last one.
  let client;
  const seen = new Map(); // progress token -> notifications
  let nextToken = 0;
  before(async () => {
    client = await connect({
      setup: (c) =>
        c.setNotificationHandler(ProgressNotificationSchema, (n) => {
          const list = seen.get(n.params.progressToken) ?? [];
          list.push(n.params);
          seen.set(n.params.progressToken, list);
        }),
    });
  });
  after(async () => {
    await client.close();
  });

  /** Calls a tool with a progress token; returns the result and the token. */
  async function callWithProgress(name) {
    const token = `p${++nextToken}`;
    const res = await client.request(
      { method: 'tools/call', params: { name, arguments: {}, _meta: { progressToken: token } } },
      CallToolResultSchema,
      CALL,
    );
    return { res, token };
  }

  test("a command's ::progress lines arrive in order and never go back", async () => {
    const { res, token } = await callWithProgress('reports_progress');
    assert.equal(res.content[0].text, 'ok\n');
    await eventually(() => (seen.get(token) ?? []).length >= 3, 5000, 'three progress notifications');
    await new Promise((r) => setTimeout(r, 50)); // nothing more may come
    assert.deepEqual(
      seen.get(token).map((p) => [p.progress, p.total, p.message]),
      [
        [10, 100, 'start'],
        [60, 100, 'more'],
        [100, 100, 'done'],
      ],
    );
  });

  test('a command that reports nothing gets an elapsed-time heartbeat', async () => {
    const { token } = await callWithProgress('silent_slow');
    await eventually(() => (seen.get(token) ?? []).length >= 2, 5000, 'heartbeats');
    const got = seen.get(token);
    for (let i = 1; i < got.length; i++) assert.ok(got[i].progress > got[i - 1].progress, JSON.stringify(got));
    assert.equal(got[0].total, undefined);
    assert.match(got[0].message, /^running for /);
  });

  test('no progress is sent when the request asked for none', async () => {
    const before = [...seen.values()].reduce((n, l) => n + l.length, 0);
    const res = await client.callTool({ name: 'reports_progress', arguments: {} }, undefined, CALL);
    assert.equal(res.content[0].text, 'ok\n');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal([...seen.values()].reduce((n, l) => n + l.length, 0), before);
  });
});

describe('confirmation', () => {
  test('accepted, the tool runs; declined, it does not', async () => {
    let answer = 'accept';
    const asked = [];
    const client = await connect({
      capabilities: { elicitation: {} },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (req) => {
          asked.push(req.params.message);
          return { action: answer, content: {} };
        }),
    });
    try {
      const ok = await client.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } }, undefined, CALL);
      assert.equal(ok.isError, undefined);
      assert.equal(ok.content[0].text, 'deleted a.txt');
      answer = 'decline';
      const no = await client.callTool({ name: 'delete_file', arguments: { path: 'b.txt' } }, undefined, CALL);
      assert.equal(no.isError, true);
      assert.match(no.content[0].text, /declined/);
      answer = 'cancel';
      const cancelled = await client.callTool({ name: 'delete_file', arguments: { path: 'c.txt' } }, undefined, CALL);
      assert.equal(cancelled.isError, true);
      assert.match(cancelled.content[0].text, /cancelled/);
      assert.deepEqual(asked, ['Delete a.txt?', 'Delete b.txt?', 'Delete c.txt?']);
    } finally {
      await client.close();
    }
  });

  test('a client that cannot be asked: deny by default, allow when configured', async () => {
    const client = await connect();
    try {
      const no = await client.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } }, undefined, CALL);
      assert.equal(no.isError, true);
      assert.match(no.content[0].text, /cannot ask the user/);
      const yes = await client.callTool({ name: 'delete_allowed', arguments: {} }, undefined, CALL);
      assert.equal(yes.isError, undefined);
      assert.equal(yes.content[0].text, 'ran');
    } finally {
      await client.close();
    }
  });
});

describe('ask', () => {
  test('the form is sent with its schema, and the answers reach the tool', async () => {
    let reply = { action: 'accept', content: { time: '19:30', people: 4, extras: ['window'] } };
    const asked = [];
    const client = await connect({
      capabilities: { elicitation: {} },
      setup: (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (req) => {
          asked.push(req.params);
          return reply;
        }),
    });
    try {
      const ok = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Chez Nous' } }, undefined, CALL);
      assert.equal(ok.isError, undefined, JSON.stringify(ok));
      assert.equal(ok.content[0].text, 'Booked Chez Nous at 19:30 for 4 (window)');
      assert.equal(asked[0].message, 'Booking at Chez Nous: when, and for how many?');
      assert.deepEqual(asked[0].requestedSchema, {
        type: 'object',
        properties: {
          time: { type: 'string', description: 'Time, such as 19:30', maxLength: 5 },
          people: { type: 'integer', minimum: 1, maximum: 12, default: 2 },
          extras: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'window', title: 'By the window' },
                { const: 'quiet', title: 'A quiet corner' },
              ],
            },
          },
        },
        required: ['time'],
      });

      reply = { action: 'accept', content: { time: '20:00' } };
      const defaults = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Roma' } }, undefined, CALL);
      assert.equal(defaults.content[0].text, 'Booked Roma at 20:00 for 2');

      reply = { action: 'accept', content: { time: '20:00', people: 40 } };
      const tooMany = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Roma' } }, undefined, CALL);
      assert.equal(tooMany.isError, true);
      assert.match(tooMany.content[0].text, /answers do not fit the form.*people/);

      reply = { action: 'accept', content: { time: '20:00', extras: ['terrace'] } };
      const notAChoice = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Roma' } }, undefined, CALL);
      assert.equal(notAChoice.isError, true);
      assert.match(notAChoice.content[0].text, /answers do not fit the form.*extras/);

      reply = { action: 'decline' };
      const declined = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Roma' } }, undefined, CALL);
      assert.equal(declined.isError, true);
      assert.match(declined.content[0].text, /declined to answer/);
    } finally {
      await client.close();
    }
  });

  test('a client that cannot be asked gets a clear refusal', async () => {
    const client = await connect();
    try {
      const res = await client.callTool({ name: 'book_table', arguments: { restaurant: 'Roma' } }, undefined, CALL);
      assert.equal(res.isError, true);
      assert.match(res.content[0].text, /needs to ask the user for details/);
    } finally {
      await client.close();
    }
  });
});

describe('cancellation', () => {
  test("cancelling a call kills its command", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolhost-rich-'));
    const client = await connect();
    try {
      const pidfile = join(dir, 'pid');
      const ac = new AbortController();
      const call = client.callTool({ name: 'sleeper', arguments: { pidfile } }, undefined, { signal: ac.signal, timeout: 60_000 });
      let pid = 0;
      await eventually(async () => {
        try {
          pid = Number((await readFile(pidfile, 'utf8')).trim());
        } catch {
          return false;
        }
        return pid > 0;
      }, 10_000, 'the command to start');
      ac.abort('the user changed their mind');
      await assert.rejects(call);
      await eventually(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 10_000, `process ${pid} to be killed`);
      // The server goes on serving.
      const res = await client.callTool({ name: 'image_file', arguments: {} }, undefined, CALL);
      assert.equal(res.content[0].type, 'image');
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
