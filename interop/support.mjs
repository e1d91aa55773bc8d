// Helpers shared by the interoperability tests that wait for events:
// every wait is for an event or a state, with a deadline; none is a fixed
// sleep.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/** How long any change may take to show. */
export const DEADLINE_MS = 10_000;

/**
 * A log of notifications that can be awaited: waitFor resolves with the
 * first item after mark that satisfies pred, or rejects at the deadline.
 */
export class Events {
  items = [];
  #waiters = new Set();

  push(item) {
    this.items.push(item);
    for (const w of [...this.#waiters]) w();
  }

  mark() {
    return this.items.length;
  }

  since(mark) {
    return this.items.slice(mark);
  }

  waitFor(what, mark, pred = () => true, ms = DEADLINE_MS) {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.items.slice(mark).find(pred);
        if (hit === undefined) return false;
        cleanup();
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(
          `timed out after ${ms} ms waiting for ${what}; seen since the edit: ` +
            JSON.stringify(this.items.slice(mark))));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      if (!check()) this.#waiters.add(check);
    });
  }
}

/** Retries fn (which asserts) until it passes, or throws its last error at the deadline. */
export async function eventually(what, fn, ms = DEADLINE_MS) {
  const deadline = Date.now() + ms;
  for (let pause = 20; ; pause = Math.min(pause * 2, 250)) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() >= deadline) {
        err.message = `${what}: still failing after ${ms} ms: ${err.message}`;
        throw err;
      }
    }
    await delay(pause);
  }
}

/** The single text content of a successful tool result. */
export function okText(result) {
  assert.notEqual(result.isError, true, `tool call failed: ${JSON.stringify(result)}`);
  assert.equal(result.content?.length, 1, `one content item, got ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, 'text');
  return result.content[0].text;
}


/**
 * The end of a suite that spawned a server over stdio: closes the client
 * (a failure there is for the suite's own tests to report), removes dir,
 * and prints what the server wrote on stderr, under label.
 */
export async function closeAndReport(client, dir, stderr, label = 'toolhost') {
  try {
    await client?.close();
  } catch {
    // reported by the suite's tests
  }
  if (dir) await rm(dir, { recursive: true, force: true });
  if (stderr.trim() !== '') {
    console.log(`---- ${label} stderr ----\n` + stderr.trimEnd() + `\n---- end of ${label} stderr ----`);
  }
}

/**
 * Starts `toolhost serve --listen 127.0.0.1:0 CONFIG` in dir, its log
 * lines pushed to stderr (an Events), and waits until it serves. Returns
 * the process, a promise of its exit ({ code, signal }), and the URL of
 * its /mcp endpoint; rejects, with the log, if it exits first.
 */
export async function startHTTPServe(bin, cfg, dir, stderr) {
  const server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', cfg], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const exit = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  let partial = '';
  server.stderr.on('data', (chunk) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop();
    for (const l of lines) stderr.push(l);
  });
  const serving = await Promise.race([
    stderr.waitFor('the "serving over HTTP" log line', 0, (l) => l.includes('serving over HTTP')),
    exit.then((st) => {
      throw new Error(`toolhost exited (${JSON.stringify(st)}):\n${stderr.items.join('\n')}`);
    }),
  ]);
  const url = /mcp=(\S+)/.exec(serving)?.[1];
  assert.ok(url, `the log line names the /mcp URL: ${serving}`);
  return { server, exit, url };
}
