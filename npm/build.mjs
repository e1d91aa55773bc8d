#!/usr/bin/env node
// build.mjs makes toolhost's npm packages from GoReleaser's release
// archives: the toolhost package (the launcher, with one optional
// dependency per platform) and one package per platform holding its
// binary. It needs Node.js 18 or newer and npm, and nothing else.
//
//   node npm/build.mjs --dist DIR --version V --out OUTDIR [--only linux-x64,...]
//
// DIR holds toolhost_<V>_<os>_<arch>.tar.gz (.zip for windows), V is the
// version GoReleaser gave them; the packages' version is V as semver (a
// leading "v" and any "+build" part dropped). Each package is written to
// OUTDIR/<name>/ and packed with `npm pack` into OUTDIR; the tarballs'
// paths are printed, one a line. --only packs just the listed platform
// packages (the toolhost package still lists all of them).

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { readArchiveFile } from './archive.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const template = join(here, 'toolhost');
const { PLATFORMS } = createRequire(import.meta.url)('./toolhost/platform.js');

const usage = 'usage: node npm/build.mjs --dist DIR --version V --out OUTDIR [--only PLATFORM,...]';

// semver is the grammar of semver.org's version (without build metadata).
const semver =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?$/;

/** UsageError is a mistake in the command line: it exits 2. */
class UsageError extends Error {}

/**
 * npmVersion returns the npm version for GoReleaser's version v: v
 * without a leading "v" and without build metadata (which npm drops), so
 * that "0.1.1-SNAPSHOT-abc1234" stays itself and "v1.2.0+abc" becomes
 * "1.2.0". It throws a UsageError for anything else that is not semver.
 */
export function npmVersion(v) {
  const s = v.replace(/^v/, '').replace(/\+[0-9A-Za-z.-]*$/, '');
  if (!semver.test(s)) {
    throw new UsageError(
      `--version ${JSON.stringify(v)} is not a semantic version: want MAJOR.MINOR.PATCH with an optional ` +
        `-PRERELEASE (as GoReleaser names its archives: 1.2.3, v1.2.3, 0.1.1-SNAPSHOT-abc1234)`);
  }
  return s;
}

/** repositoryURL returns the https URL of the repository go.mod's module path names. */
function repositoryURL() {
  const gomod = readFileSync(join(here, '..', 'go.mod'), 'utf8');
  const m = /^module\s+(\S+)/m.exec(gomod);
  if (!m) throw new Error(`${join(here, '..', 'go.mod')} has no module line`);
  return `https://${m[1]}`;
}

function writeJSON(file, value) {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** common returns the package.json fields every package shares. */
function common(version, repo) {
  return {
    version,
    license: 'MIT',
    homepage: `${repo}#readme`,
    repository: { type: 'git', url: `git+${repo}.git` },
    bugs: { url: `${repo}/issues` },
  };
}

/** writeMain writes the toolhost package into dir. */
function writeMain(dir, version, repo) {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  for (const f of ['install.js', 'platform.js']) copyFileSync(join(template, f), join(dir, f));
  copyFileSync(join(template, 'bin', 'toolhost'), join(dir, 'bin', 'toolhost'));
  chmodSync(join(dir, 'bin', 'toolhost'), 0o755);
  copyFileSync(join(here, 'README.md'), join(dir, 'README.md'));
  copyFileSync(join(here, '..', 'LICENSE'), join(dir, 'LICENSE'));
  writeJSON(join(dir, 'package.json'), {
    name: 'toolhost',
    ...common(version, repo),
    description: 'Declare MCP tools, resources and prompts in HCL; toolhost serves them to any MCP client.',
    keywords: ['mcp', 'model-context-protocol', 'mcp-server', 'hcl', 'tools'],
    bin: { toolhost: 'bin/toolhost' },
    scripts: { postinstall: 'node install.js' },
    engines: { node: '>=18' },
    files: ['bin/toolhost', 'install.js', 'platform.js'],
    optionalDependencies: Object.fromEntries(PLATFORMS.map((p) => [p.pkg, version])),
  });
}

/** writePlatform writes platform p's package, holding binary, into dir. */
function writePlatform(dir, p, binary, version, repo) {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, p.bin), binary, { mode: 0o755 });
  chmodSync(join(dir, p.bin), 0o755);
  copyFileSync(join(here, '..', 'LICENSE'), join(dir, 'LICENSE'));
  writeFileSync(
    join(dir, 'README.md'),
    `# ${p.pkg}\n\nThe toolhost binary for ${p.key} (${p.goos}/${p.goarch}). Install ` +
      `[toolhost](https://www.npmjs.com/package/toolhost) instead: it depends on this package ` +
      `on ${p.key}, and its launcher runs the binary.\n`);
  writeJSON(join(dir, 'package.json'), {
    name: p.pkg,
    ...common(version, repo),
    description: `The toolhost binary for ${p.key}.`,
    os: [p.os],
    cpu: [p.cpu],
    files: [p.bin],
    preferUnplugged: true,
  });
}

/** pack runs npm pack in dir, writing the tarball into out, and returns its path. */
function pack(dir, out) {
  const r = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
    cwd: dir,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (r.error) throw new Error(`npm pack in ${dir}: ${r.error.message} (is npm on PATH?)`);
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed (exit status ${r.status}):\n${r.stderr}`);
  return join(out, JSON.parse(r.stdout)[0].filename);
}

function main(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { dist: { type: 'string' }, version: { type: 'string' }, out: { type: 'string' }, only: { type: 'string' } },
    }));
  } catch (err) {
    throw new UsageError(err.message);
  }
  for (const k of ['dist', 'version', 'out']) {
    if (!values[k]) throw new UsageError(`--${k} is missing`);
  }
  const version = npmVersion(values.version);
  const dist = resolve(values.dist);
  const out = resolve(values.out);
  let platforms = PLATFORMS;
  if (values.only !== undefined) {
    const keys = values.only.split(',').filter(Boolean);
    for (const k of keys) {
      if (!PLATFORMS.some((p) => p.key === k)) {
        throw new UsageError(`--only: unknown platform ${JSON.stringify(k)}; the platforms are ${PLATFORMS.map((p) => p.key).join(', ')}`);
      }
    }
    platforms = PLATFORMS.filter((p) => keys.includes(p.key));
  }

  // Every archive is read before anything is written, so that a missing
  // one leaves OUTDIR as it was.
  const binaries = platforms.map((p) => {
    const ext = p.goos === 'windows' ? 'zip' : 'tar.gz';
    const archive = join(dist, `toolhost_${values.version}_${p.goos}_${p.goarch}.${ext}`);
    if (!existsSync(archive)) {
      throw new Error(
        `${archive}: no such archive. --dist must be GoReleaser's dist directory holding an archive for every platform ` +
          `(toolhost_${values.version}_<os>_<arch>.tar.gz, .zip for windows) of release ${values.version}; ` +
          `run the release first, check --version, or pack fewer platforms with --only`);
    }
    return readArchiveFile(archive, p.goos === 'windows' ? 'toolhost.exe' : 'toolhost');
  });

  const repo = repositoryURL();
  mkdirSync(out, { recursive: true });
  const tarballs = [];
  const mainDir = join(out, 'toolhost');
  rmSync(mainDir, { recursive: true, force: true });
  writeMain(mainDir, version, repo);
  tarballs.push(pack(mainDir, out));
  platforms.forEach((p, i) => {
    const dir = join(out, p.key);
    rmSync(dir, { recursive: true, force: true });
    writePlatform(dir, p, binaries[i], version, repo);
    tarballs.push(pack(dir, out));
  });
  process.stdout.write(tarballs.map((t) => `${t}\n`).join(''));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`build.mjs: ${err.message}\n`);
    if (err instanceof UsageError) process.stderr.write(`${usage}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  }
}
