// A read-only npm registry on 127.0.0.1 serving a few package tarballs,
// for npm.test.mjs: `npx -y toolhost` from a directory with nothing
// installed resolves toolhost and its platform packages through it, as it
// would through registry.npmjs.org.

import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename } from 'node:path';

/**
 * startRegistry serves the packages in tarballs (npm pack's .tgz files)
 * and returns { url, requests, close }. Each package has one version,
 * tagged latest. requests lists the package names npm asked for, in
 * order; a name not served is answered 404, as the real registry would.
 */
export async function startRegistry(tarballs) {
  const packages = new Map(); // name -> { manifest, file, data }
  for (const file of tarballs) {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }));
    packages.set(manifest.name, { manifest, file: basename(file), data: readFileSync(file) });
  }
  const requests = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname).slice(1);
    const tarball = /^-\/tarballs\/(.+)$/.exec(path);
    if (tarball) {
      const p = [...packages.values()].find((q) => q.file === tarball[1]);
      if (!p) return notFound(res);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': p.data.length });
      return res.end(p.data);
    }
    requests.push(path);
    const p = packages.get(path);
    if (!p) return notFound(res);
    const { version } = p.manifest;
    const packument = {
      name: path,
      'dist-tags': { latest: version },
      versions: {
        [version]: {
          ...p.manifest,
          dist: {
            tarball: `${url}-/tarballs/${encodeURIComponent(p.file)}`,
            integrity: `sha512-${createHash('sha512').update(p.data).digest('base64')}`,
            shasum: createHash('sha1').update(p.data).digest('hex'),
          },
        },
      },
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(packument));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

function notFound(res) {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"Not found"}');
}
