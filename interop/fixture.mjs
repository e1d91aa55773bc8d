// Local stand-ins for the two upstream HTTP APIs that examples/tools.hcl
// calls: the vvhan Baidu hot list (served in GBK, as the real one is) and
// wttr.in's ?format=j1 weather JSON. Only 127.0.0.1 is ever listened on.

import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';

const testdata = new URL('./testdata/', import.meta.url);

/** The hot list as UTF-8 text (the twin of the GBK file). */
export async function hotlistUTF8() {
  return readFile(new URL('hotlist.json', testdata), 'utf8');
}

/** The hot list as the GBK bytes that go on the wire. */
export async function hotlistGBK() {
  return readFile(new URL('hotlist.gbk.json', testdata));
}

/** The PNG the fixture serves for wttr.in's /{city}.png. */
export async function forecastPNG() {
  return readFile(new URL('rich/red.png', testdata));
}

/** A minimal wttr.in j1 document for a city. */
export function weatherFor(city) {
  return {
    current_condition: [
      {
        temp_C: '21',
        temp_F: '70',
        humidity: '40',
        weatherDesc: [{ value: 'Sunny' }],
      },
    ],
    nearest_area: [{ areaName: [{ value: city }] }],
  };
}

/**
 * Starts the fixture server on 127.0.0.1 with an ephemeral port.
 * Returns { url, requests, close }: url has no trailing slash; requests
 * records { method, url, headers } of every request received.
 */
export async function startFixture() {
  const gbk = await hotlistGBK();
  const pngBytes = await forecastPNG();
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method, url: req.url, headers: { ...req.headers } });
    const u = new URL(req.url, 'http://fixture.invalid');
    const send = (status, type, body) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    if (u.pathname === '/api/hotlist/baiduRD') {
      send(200, 'application/json;charset=GBK', gbk);
      return;
    }
    // /{city}.png: wttr.in's forecast picture (a 1x1 PNG here).
    const png = /^\/([^/]+)\.png$/.exec(u.pathname);
    if (png) {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': pngBytes.length });
      res.end(req.method === 'HEAD' ? undefined : pngBytes);
      return;
    }
    // /{city}?format=j1: exactly one non-empty path segment.
    const m = /^\/([^/]+)$/.exec(u.pathname);
    if (m && u.searchParams.get('format') === 'j1') {
      let city;
      try {
        city = decodeURIComponent(m[1]);
      } catch {
        send(400, 'text/plain; charset=utf-8', 'bad city\n');
        return;
      }
      send(200, 'application/json', JSON.stringify(weatherFor(city)));
      return;
    }
    send(404, 'text/plain; charset=utf-8', 'not found\n');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
