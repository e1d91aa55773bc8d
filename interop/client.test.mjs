// Interoperability test: the official TypeScript MCP SDK client talks to a
// real toolhost binary serving examples/tools.hcl over stdio.
//
//   TOOLHOST_BIN=/path/to/toolhost node --test client.test.mjs
//
// The Go test interop_test.go builds the binary and runs this file. The two
// HTTP upstreams of the example tools are replaced by fixture.mjs on
// 127.0.0.1; nothing here reaches the network.

import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, stat, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { startFixture, hotlistGBK, hotlistUTF8, forecastPNG } from './fixture.mjs';

const examplesDir = fileURLToPath(new URL('../examples/', import.meta.url));
const bin = process.env.TOOLHOST_BIN;

const CALL_TIMEOUT = { timeout: 20_000 };

// ---- what the client must see, read off examples/tools.hcl ----

const expectedInputSchemas = {
  get_weather_map: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name, such as 北京 or London.', minLength: 1, maxLength: 100 },
    },
    required: ['city'],
    additionalProperties: false,
  },
  count_files: {
    type: 'object',
    properties: {
      delay: {
        type: 'number',
        description: 'Seconds to wait per file (to watch the progress).',
        default: 0.2,
        minimum: 0,
        maximum: 2,
      },
    },
    additionalProperties: false,
  },
  get_report: { type: 'object', properties: {}, additionalProperties: false },
  delete_file: {
    type: 'object',
    properties: {
      filename: {
        type: 'string',
        description: 'File name in the workspace folder, such as notes.txt.',
        pattern: '^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$',
      },
    },
    required: ['filename'],
    additionalProperties: false,
  },
  getBaiduHotspot: {
    type: 'object',
    properties: {
      limit: {
        type: 'integer',
        description: 'How many topics to return.',
        default: 10,
        minimum: 1,
        maximum: 50,
      },
    },
    additionalProperties: false,
  },
  say_hello: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The name to greet' },
    },
    required: ['name'],
    additionalProperties: false,
  },
  get_current_time: {
    type: 'object',
    properties: {
      format: { type: 'string', enum: ['simple', 'detailed'], default: 'simple' },
    },
    additionalProperties: false,
  },
  echo: {
    type: 'object',
    properties: {
      text: { type: 'string', default: '' },
    },
    additionalProperties: false,
  },
  create_file: {
    type: 'object',
    properties: {
      filename: {
        type: 'string',
        description:
          "File name, such as notes.txt (letters, digits, '.', '_' and '-'; no folders).",
        pattern: '^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$',
      },
      content: {
        type: 'string',
        description: "The file's content.",
        maxLength: 1048576,
      },
    },
    required: ['filename', 'content'],
    additionalProperties: false,
  },
  get_weather: {
    type: 'object',
    properties: {
      city: {
        type: 'string',
        description: 'City name, such as 北京 or London.',
        minLength: 1,
        maxLength: 100,
      },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    },
    required: ['city'],
    additionalProperties: false,
  },
};

const DAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const MONTHS =
  'January|February|March|April|May|June|July|August|September|October|November|December';

// ---- helpers ----

/** The single text content of a tool result. */
function onlyText(result) {
  assert.ok(Array.isArray(result.content), 'result.content is an array');
  assert.equal(result.content.length, 1, `one content item, got ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}

/** Asserts that a successful (isError not true) result came back. */
function assertOK(result) {
  assert.notEqual(result.isError, true, `tool call failed: ${JSON.stringify(result)}`);
}

/** Asserts that promise rejects with an McpError, optionally of the given code. */
async function assertMcpRejects(promise, code, what) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof McpError, `${what}: expected McpError, got ${err?.stack ?? err}`);
    if (code !== undefined) {
      assert.equal(err.code, code, `${what}: error code (message: ${err.message})`);
    }
    return true;
  });
}

// ---- the suite ----

describe('toolhost over stdio with the official TypeScript SDK client', { timeout: 90_000 }, () => {
  let fixture;
  let workDir; // the copy of examples/
  let cwdDir; // an unrelated working directory for the child
  let transport;
  let client;
  let child; // the ChildProcess, for the exit check
  let childExit; // resolves to { code, signal }
  let stderr = '';
  let hotlist; // parsed testdata/hotlist.json

  before(async () => {
    assert.ok(bin, 'set TOOLHOST_BIN to the toolhost binary (interop_test.go does this)');
    assert.ok(existsSync(bin), `TOOLHOST_BIN ${bin} does not exist`);

    hotlist = JSON.parse(await hotlistUTF8());
    fixture = await startFixture();

    workDir = await mkdtemp(join(tmpdir(), 'toolhost-interop-'));
    await cp(examplesDir, workDir, { recursive: true });
    cwdDir = await mkdtemp(join(tmpdir(), 'toolhost-interop-cwd-'));

    transport = new StdioClientTransport({
      command: bin,
      args: ['serve', join(workDir, 'tools.hcl')],
      env: {
        HOTLIST_BASE_URL: fixture.url,
        WEATHER_BASE_URL: fixture.url,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? workDir,
      },
      cwd: cwdDir,
      stderr: 'pipe',
    });
    transport.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
    });

    client = new Client({ name: 'toolhost-interop', version: '1.0.0' });
    await client.connect(transport);

    // The SDK keeps the ChildProcess in a private field; take it to check
    // how the server exits when the client closes.
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

  after(async () => {
    try {
      await client?.close();
    } catch {
      // reported by the close test
    }
    await fixture?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
    if (cwdDir) await rm(cwdDir, { recursive: true, force: true });
    if (stderr.trim() !== '') {
      console.log('---- toolhost stderr ----\n' + stderr.trimEnd() + '\n---- end of toolhost stderr ----');
    }
  });

  test('fixture: the GBK hot list decodes to its UTF-8 twin', async () => {
    const gbk = await hotlistGBK();
    const utf8 = await hotlistUTF8();
    assert.equal(new TextDecoder('gbk', { fatal: true }).decode(gbk), utf8);
    // The bytes really are GBK, not UTF-8, so the host has to transcode.
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(gbk));
    assert.equal(hotlist.data.length, 12);
  });

  test('initialize: server info, instructions and capabilities', () => {
    const info = client.getServerVersion();
    assert.equal(info.name, 'toolhost-examples');
    assert.equal(info.version, '1.0.0');
    assert.equal(client.getInstructions(), 'Hot lists, time, greetings, files and commands.');
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools, 'tools capability');
    assert.ok(caps.resources, 'resources capability');
    assert.ok(caps.prompts, 'prompts capability');
  });

  test('ping', async () => {
    assert.deepEqual(await client.ping(), {});
  });

  test('tools/list: all ten tools with the exact input schemas', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      Object.keys(expectedInputSchemas).sort(),
    );
    for (const [name, schema] of Object.entries(expectedInputSchemas)) {
      assert.deepEqual(byName[name].inputSchema, schema, `inputSchema of ${name}`);
    }

    // Descriptions, title and annotations from the config.
    assert.equal(byName.getBaiduHotspot.title, 'Baidu hot list');
    assert.equal(
      byName.getBaiduHotspot.description,
      'Get Baidu Hot News List: realtime hot search topics, hottest first.',
    );
    assert.equal(byName.getBaiduHotspot.annotations?.readOnlyHint, true);
    assert.equal(byName.getBaiduHotspot.annotations?.openWorldHint, true);
    assert.equal(byName.get_weather.annotations?.readOnlyHint, true);
    assert.equal(byName.create_file.annotations?.destructiveHint, false);
    assert.equal(byName.say_hello.description, 'Returns a friendly greeting');

    // Output schemas: only the tools with a result block have one.
    for (const name of ['say_hello', 'get_current_time', 'echo', 'create_file']) {
      assert.equal(byName[name].outputSchema, undefined, `${name} has no outputSchema`);
    }
    const hot = byName.getBaiduHotspot.outputSchema;
    assert.ok(hot, 'getBaiduHotspot has an outputSchema');
    assert.equal(hot.type, 'object');
    assert.deepEqual([...hot.required].sort(), ['topics', 'updated_at']);
    assert.equal(hot.properties.updated_at.type, 'string');
    assert.equal(hot.properties.topics.type, 'array');
    const item = hot.properties.topics.items;
    assert.equal(item.type, 'object');
    assert.deepEqual(
      Object.fromEntries(Object.entries(item.properties).map(([k, v]) => [k, v.type])),
      { title: 'string', hot: 'string', url: 'string', index: 'number' },
    );
    assert.deepEqual([...item.required].sort(), ['hot', 'index', 'title', 'url']);

    const weather = byName.get_weather.outputSchema;
    assert.ok(weather, 'get_weather has an outputSchema');
    assert.equal(weather.type, 'object');
    assert.deepEqual(
      Object.fromEntries(Object.entries(weather.properties).map(([k, v]) => [k, v.type])),
      { city: 'string', temperature: 'number', conditions: 'string', humidity: 'integer' },
    );
    // city is optional = true
    assert.deepEqual([...weather.required].sort(), ['conditions', 'humidity', 'temperature']);
  });

  test('say_hello greets a Chinese name', async () => {
    const r = await client.callTool({ name: 'say_hello', arguments: { name: '世界' } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.equal(onlyText(r), 'hello 世界');
  });

  test('get_current_time: simple (also the default) and detailed', async () => {
    const simpleRe = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
    const simple = await client.callTool(
      { name: 'get_current_time', arguments: { format: 'simple' } }, undefined, CALL_TIMEOUT);
    assertOK(simple);
    assert.match(onlyText(simple), simpleRe);

    const dflt = await client.callTool({ name: 'get_current_time', arguments: {} }, undefined, CALL_TIMEOUT);
    assertOK(dflt);
    assert.match(onlyText(dflt), simpleRe);

    const detailed = await client.callTool(
      { name: 'get_current_time', arguments: { format: 'detailed' } }, undefined, CALL_TIMEOUT);
    assertOK(detailed);
    assert.match(
      onlyText(detailed),
      new RegExp(`^(${DAYS}), \\d{2} (${MONTHS}) \\d{4} \\d{2}:\\d{2}:\\d{2} \\S+$`),
    );
  });

  test('echo returns shell metacharacters, quotes, newlines and Chinese verbatim', async () => {
    const text =
      "$(id) `id` ${HOME} 'single' \"double\" \\backslash\\ %s %d %% ; | & > /tmp/x\n" +
      'line two\twith a tab\n你好，世界！ 百度热点 · “引号”';
    const r = await client.callTool({ name: 'echo', arguments: { text } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.equal(onlyText(r), text);
  });

  test('echo without text answers the empty text, as the Python sketch does', async () => {
    const r = await client.callTool({ name: 'echo', arguments: {} }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.equal(onlyText(r), '');
  });

  test('create_file writes the exact content into the copied workspace', async () => {
    const filename = 'interop_note.txt';
    const content = '第一行：你好\nsecond line with $(id) and `id` and "quotes"\n第三行 end\n';
    const r = await client.callTool(
      { name: 'create_file', arguments: { filename, content } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.equal(onlyText(r), `created ${filename} (${Buffer.byteLength(content)} bytes)`);
    const written = await readFile(join(workDir, 'workspace', filename));
    assert.ok(written.equals(Buffer.from(content, 'utf8')), `file content: ${JSON.stringify(written.toString())}`);
    // Relative to the config, not to the server's working directory.
    assert.deepEqual(await readdir(cwdDir), []);
  });

  test('create_file refuses a file name outside the pattern', async () => {
    let result;
    try {
      result = await client.callTool(
        { name: 'create_file', arguments: { filename: '../escaped.txt', content: 'x' } },
        undefined, CALL_TIMEOUT);
    } catch (err) {
      assert.ok(err instanceof McpError, `expected McpError, got ${err}`);
    }
    if (result) assert.equal(result.isError, true, `expected an error, got ${JSON.stringify(result)}`);
    assert.equal(existsSync(join(workDir, 'escaped.txt')), false);
    assert.equal(existsSync(join(workDir, 'workspace', '..', 'escaped.txt')), false);
  });

  test('getBaiduHotspot limit 3: GBK upstream, structured content, Chinese titles byte-exact', async () => {
    const before = fixture.requests.length;
    const r = await client.callTool({ name: 'getBaiduHotspot', arguments: { limit: 3 } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    const sc = r.structuredContent;
    assert.ok(sc, 'structuredContent present');
    assert.equal(sc.updated_at, '2025-04-25 16:36:39');
    assert.equal(sc.topics.length, 3);
    const want = hotlist.data.slice(0, 3).map(({ title, hot, url, index }) => ({ title, hot, url, index }));
    assert.deepEqual(sc.topics, want);
    for (let i = 0; i < 3; i++) {
      assert.ok(
        Buffer.from(sc.topics[i].title, 'utf8').equals(Buffer.from(want[i].title, 'utf8')),
        `title ${i} byte-exact`,
      );
    }
    // The text content carries the same JSON.
    assert.deepEqual(JSON.parse(onlyText(r)), sc);

    const reqs = fixture.requests.slice(before);
    assert.equal(reqs.length, 1, 'one upstream request');
    assert.equal(reqs[0].method, 'GET');
    assert.equal(reqs[0].url, '/api/hotlist/baiduRD');
    assert.equal(reqs[0].headers.accept, 'application/json');
  });

  test('getBaiduHotspot without arguments uses the default limit 10', async () => {
    const r = await client.callTool({ name: 'getBaiduHotspot', arguments: {} }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.deepEqual(
      r.structuredContent.topics.map((t) => t.title),
      hotlist.data.slice(0, 10).map((t) => t.title),
    );
  });

  test('get_weather for 北京 in fahrenheit', async () => {
    const before = fixture.requests.length;
    const r = await client.callTool(
      { name: 'get_weather', arguments: { city: '北京', unit: 'fahrenheit' } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    const sc = r.structuredContent;
    assert.deepEqual(sc, { city: '北京', temperature: 70, conditions: 'Sunny', humidity: 40 });
    assert.equal(typeof sc.temperature, 'number');
    assert.ok(Number.isInteger(sc.humidity), 'humidity is an integer');
    assert.deepEqual(JSON.parse(onlyText(r)), sc);

    const reqs = fixture.requests.slice(before);
    assert.equal(reqs.length, 1, 'one upstream request');
    assert.equal(reqs[0].url, `/${encodeURIComponent('北京')}?format=j1`);
  });

  test('get_weather defaults to celsius', async () => {
    const r = await client.callTool(
      { name: 'get_weather', arguments: { city: 'London' } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.deepEqual(r.structuredContent, { city: 'London', temperature: 21, conditions: 'Sunny', humidity: 40 });
  });

  test('get_weather_map: a caption and the forecast PNG, byte for byte', async () => {
    const before = fixture.requests.length;
    const r = await client.callTool({ name: 'get_weather_map', arguments: { city: '北京' } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.deepEqual(r.content.map((c) => c.type), ['text', 'image']);
    assert.equal(r.content[0].text, '北京天气预报');
    assert.equal(r.content[1].mimeType, 'image/png');
    assert.deepEqual(Buffer.from(r.content[1].data, 'base64'), await forecastPNG());
    const reqs = fixture.requests.slice(before);
    assert.equal(reqs[0].url, `/${encodeURIComponent('北京')}.png`);
  });

  test('get_report embeds the Q4 report and links to it', async () => {
    const r = await client.callTool({ name: 'get_report', arguments: {} }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.deepEqual(r.content.map((c) => c.type), ['text', 'resource', 'resource_link']);
    const q4 = await readFile(join(examplesDir, 'reports', 'q4.md'), 'utf8');
    assert.deepEqual(r.content[1].resource, { uri: 'file:///reports/q4.md', mimeType: 'text/markdown', text: q4 });
    assert.equal(r.content[2].name, 'q4_report');
    assert.equal(r.content[2].title, 'Q4 report');
  });

  test('count_files reports progress per file and returns the count', async () => {
    const seen = [];
    const r = await client.callTool({ name: 'count_files', arguments: { delay: 0.05 } }, undefined, {
      ...CALL_TIMEOUT,
      onprogress: (p) => seen.push(p),
    });
    assertOK(r);
    assert.equal(onlyText(r), '2 files\n');
    // The last notification can arrive in the same read as the result,
    // which this client then drops; the first one cannot.
    assert.ok(seen.length >= 1, 'progress notifications');
    assert.deepEqual([seen[0].progress, seen[0].total], [1, 2]);
  });

  test('delete_file is refused when the client cannot ask the user', async () => {
    const r = await client.callTool({ name: 'delete_file', arguments: { filename: 'x.txt' } }, undefined, CALL_TIMEOUT);
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /needs the user's confirmation/);
  });

  test('get_weather keeps a city with / ? # inside one escaped path segment', async () => {
    const before = fixture.requests.length;
    const city = 'a/b?c#d';
    const r = await client.callTool({ name: 'get_weather', arguments: { city } }, undefined, CALL_TIMEOUT);
    assertOK(r);
    assert.equal(r.structuredContent.city, city);
    const reqs = fixture.requests.slice(before);
    assert.equal(reqs.length, 1, 'one upstream request');
    assert.equal(reqs[0].url, '/a%2Fb%3Fc%23d?format=j1');
  });

  test('getBaiduHotspot limit 99 is a tool error that mentions limit', async () => {
    const before = fixture.requests.length;
    const r = await client.callTool({ name: 'getBaiduHotspot', arguments: { limit: 99 } }, undefined, CALL_TIMEOUT);
    assert.equal(r.isError, true, `expected isError, got ${JSON.stringify(r)}`);
    assert.ok(r.content.length >= 1);
    const text = r.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    assert.match(text, /limit/);
    assert.equal(fixture.requests.length, before, 'no upstream request for invalid arguments');
  });

  test('an unknown tool is rejected with -32602', async () => {
    await assertMcpRejects(
      client.callTool({ name: 'no_such_tool', arguments: {} }, undefined, CALL_TIMEOUT),
      ErrorCode.InvalidParams,
      'unknown tool',
    );
  });

  test('resources: list and read file:///reports/q4.md', async () => {
    const { resources } = await client.listResources();
    const q4 = resources.find((r) => r.uri === 'file:///reports/q4.md');
    assert.ok(q4, `q4 report listed: ${JSON.stringify(resources)}`);
    assert.equal(q4.name, 'q4_report');
    assert.equal(q4.title, 'Q4 report');
    assert.equal(q4.mimeType, 'text/markdown');
    assert.equal(q4.description, 'Fourth-quarter financial report');

    const want = await readFile(join(workDir, 'reports', 'q4.md'), 'utf8');
    assert.match(want, /财务报告/);
    const { contents } = await client.readResource({ uri: 'file:///reports/q4.md' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, 'file:///reports/q4.md');
    assert.equal(contents[0].mimeType, 'text/markdown');
    assert.equal(contents[0].text, want);
  });

  test('resource templates: list and read notes:///welcome.md', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const notes = resourceTemplates.find((t) => t.uriTemplate === 'notes:///{path}');
    assert.ok(notes, `notes template listed: ${JSON.stringify(resourceTemplates)}`);
    assert.equal(notes.name, 'notes');
    assert.equal(notes.mimeType, 'text/markdown');
    assert.equal(notes.description, 'Markdown notes');

    const want = await readFile(join(workDir, 'notes', 'welcome.md'), 'utf8');
    const { contents } = await client.readResource({ uri: 'notes:///welcome.md' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, 'notes:///welcome.md');
    assert.equal(contents[0].text, want);
  });

  test('notes:///../tools.hcl (and encoded variants) are refused', async () => {
    for (const uri of ['notes:///../tools.hcl', 'notes:///%2e%2e/tools.hcl', 'notes:///%2E%2E%2Ftools.hcl']) {
      await assertMcpRejects(client.readResource({ uri }), undefined, uri);
    }
  });

  test('prompts: list and get summarize_hotlist with and without count', async () => {
    const { prompts } = await client.listPrompts();
    const p = prompts.find((x) => x.name === 'summarize_hotlist');
    assert.ok(p, `prompt listed: ${JSON.stringify(prompts)}`);
    assert.equal(p.description, "Summarize today's hot topics");
    assert.equal(p.arguments.length, 1);
    assert.equal(p.arguments[0].name, 'count');
    assert.equal(p.arguments[0].description, 'How many topics to cover');
    assert.notEqual(p.arguments[0].required, true);

    const three = await client.getPrompt({ name: 'summarize_hotlist', arguments: { count: '3' } });
    assert.equal(three.messages.length, 1);
    assert.equal(three.messages[0].role, 'user');
    assert.equal(three.messages[0].content.type, 'text');
    assert.equal(three.messages[0].content.text, 'Call getBaiduHotspot with limit 3 and summarize the topics.');

    const dflt = await client.getPrompt({ name: 'summarize_hotlist' });
    assert.equal(dflt.messages[0].content.text, 'Call getBaiduHotspot with limit 10 and summarize the topics.');
  });

  test('closing the client ends the server cleanly', async () => {
    const pid = child.pid;
    await client.close();
    const { code, signal } = await childExit;
    // StdioClientTransport.close ends stdin and waits 2s before SIGTERM; a
    // server that exits on end of input exits 0 on its own.
    assert.equal(signal, null, `server was killed by ${signal}`);
    assert.equal(code, 0, 'server exit status');
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'process is gone');
  });
});
