// npm distribution test: npm/build.mjs makes the npm packages from
// release archives, npm installs them from the tarballs alone into empty
// directories, and the official TypeScript MCP SDK client drives
// `npx -y toolhost serve examples/tools.hcl`, as an editor would, through
// the binary the install step put in place and through the JS launcher
// (install scripts off); then from a directory with nothing installed,
// where npx fetches the packages from a registry (npmregistry.mjs, on
// 127.0.0.1, serving the same tarballs).
//
//   TOOLHOST_NPM_DIST=dist TOOLHOST_NPM_VERSION=0.1.1-SNAPSHOT-abc1234 node --test npm.test.mjs
//
// TOOLHOST_NPM_DIST holds GoReleaser's archives of that version; with
// TOOLHOST_NPM_ONLY (a comma-separated list such as linux-x64) only those
// platform packages are made. .ci/npm.sh runs this file on a snapshot
// release, npm_test.go on an archive it builds. npm never reaches the
// network: it runs --offline with an empty cache and a registry address
// nothing listens on, so a package that is not among the tarballs fails
// the install (or, for another platform's optional package, is left out),
// except in the registry test, whose registry is the local one.

import { describe, test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { once } from 'node:events';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { okText, DEADLINE_MS } from './support.mjs';
import { startRegistry } from './npmregistry.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const toolsHCL = join(repo, 'examples', 'tools.hcl');
const dist = process.env.TOOLHOST_NPM_DIST;
const goreleaserVersion = process.env.TOOLHOST_NPM_VERSION;
const only = process.env.TOOLHOST_NPM_ONLY;

// deadRegistry is an address nothing listens on (the discard port).
const deadRegistry = 'http://127.0.0.1:9/';
const windows = process.platform === 'win32';
const here = `${process.platform}-${process.arch}`;
const platformPkg = `@toolhost/${here}`;

let work; // the temporary directory of everything below
let tarballs; // { main, platforms: { 'linux-x64': path, ... } }
let version; // the packages' version
const apps = {}; // name -> directory where the packages are installed

/** run runs a command to its end and returns { status, signal, stdout, stderr }. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000, shell: windows && cmd !== process.execPath, ...opts });
  if (r.error) throw r.error;
  return r;
}

/** npmEnv returns an environment in which npm and npx reach no registry. */
function npmEnv(cache) {
  return {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_registry: deadRegistry,
    npm_config_cache: cache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

/**
 * install installs the toolhost tarball into a new directory named name,
 * with npm's extra flags, and returns the directory. Every platform
 * package that was made is offered as a tarball (an override), as the
 * registry would offer it.
 */
async function install(name, flags) {
  const dir = join(work, name);
  await mkdir(dir);
  const overrides = Object.fromEntries(
    Object.entries(tarballs.platforms).map(([key, tgz]) => [`@toolhost/${key}`, `file:${tgz}`]));
  await writeFile(join(dir, 'package.json'), JSON.stringify({
    name: `npm-test-${name}`,
    private: true,
    dependencies: { toolhost: `file:${tarballs.main}` },
    overrides,
  }, null, 2));
  const r = run('npm', ['install', ...flags], { cwd: dir, env: npmEnv(join(work, `cache-${name}`)) });
  assert.equal(r.status, 0, `npm install ${flags.join(' ')} in ${dir} failed:\n${r.stdout}\n${r.stderr}`);

  // Everything installed came from the tarballs.
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '') continue;
    assert.match(entry.resolved ?? '', /^file:/, `${path} in ${dir}/package-lock.json came from ${entry.resolved}, not a tarball`);
  }
  // npm read every platform package offered, this platform's or not.
  if (!flags.includes('--omit=optional')) {
    for (const key of Object.keys(tarballs.platforms)) {
      assert.ok(lock.packages[`node_modules/@toolhost/${key}`], `${dir}/package-lock.json lacks @toolhost/${key}`);
    }
  }
  return dir;
}

/** bin returns the path of node_modules/.bin/toolhost in app dir. */
function bin(dir) {
  return join(dir, 'node_modules', '.bin', windows ? 'toolhost.cmd' : 'toolhost');
}

/** isScript reports whether file starts with "#!" (the JS launcher) rather than machine code. */
function isScript(file) {
  return readFileSync(file).subarray(0, 2).toString('latin1') === '#!';
}

/** tarEntry returns the name under which the .tar.gz archive holds name at its root ("name" or "./name"). */
function tarEntry(archive, name) {
  const list = run('tar', ['-tzf', archive]);
  assert.equal(list.status, 0, `listing ${archive}: ${list.stderr}`);
  return list.stdout.split('\n').find((n) => n.replace(/^\.\//, '') === name) ?? name;
}

before(async () => {
  assert.ok(dist && goreleaserVersion, 'set TOOLHOST_NPM_DIST and TOOLHOST_NPM_VERSION (.ci/npm.sh and npm_test.go do)');
  work = await mkdtemp(join(tmpdir(), 'toolhost-npm-'));
  const args = [join(repo, 'npm', 'build.mjs'), '--dist', dist, '--version', goreleaserVersion, '--out', join(work, 'packages')];
  if (only) args.push('--only', only);
  const r = run(process.execPath, args);
  assert.equal(r.status, 0, `node npm/build.mjs failed:\n${r.stderr}`);
  const paths = r.stdout.trim().split('\n');
  const names = paths.map((p) => JSON.parse(run('tar', ['-xzOf', p, 'package/package.json']).stdout).name);
  version = JSON.parse(readFileSync(join(work, 'packages', 'toolhost', 'package.json'), 'utf8')).version;
  tarballs = { main: paths[names.indexOf('toolhost')], platforms: {} };
  names.forEach((n, i) => {
    if (n.startsWith('@toolhost/')) tarballs.platforms[n.slice('@toolhost/'.length)] = paths[i];
  });
  assert.ok(tarballs.main, `build.mjs printed no toolhost tarball: ${r.stdout}`);
  assert.ok(tarballs.platforms[here], `build.mjs made no ${platformPkg} package (made: ${names.join(', ')})`);

  apps.scripts = await install('scripts', []);
  apps.launcher = await install('launcher', ['--ignore-scripts']);
  apps.noOptional = await install('no-optional', ['--omit=optional']);
});

after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('packages', () => {
  test('the toolhost package lists every platform package at its own version', () => {
    const pkg = JSON.parse(readFileSync(join(apps.scripts, 'node_modules', 'toolhost', 'package.json'), 'utf8'));
    assert.deepEqual(pkg.optionalDependencies, Object.fromEntries(
      ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'].map((k) => [`@toolhost/${k}`, version])));
    assert.deepEqual(pkg.bin, { toolhost: 'bin/toolhost' });
  });

  test("this platform's package has os, cpu and an executable binary", () => {
    const dir = join(apps.scripts, 'node_modules', '@toolhost', here);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    assert.equal(pkg.version, version);
    assert.deepEqual([pkg.os, pkg.cpu], [[process.platform], [process.arch]]);
    const exe = join(dir, 'bin', windows ? 'toolhost.exe' : 'toolhost');
    if (!windows) assert.equal(statSync(exe).mode & 0o111, 0o111, `${exe} is not executable`);
  });

  test('the install step puts the binary in place of the launcher', { skip: windows && 'Windows keeps the JS launcher' }, () => {
    const target = join(apps.scripts, 'node_modules', 'toolhost', 'bin', 'toolhost');
    const exe = join(apps.scripts, 'node_modules', '@toolhost', here, 'bin', 'toolhost');
    assert.ok(!isScript(target), `${target} is still the JS launcher`);
    assert.deepEqual(readFileSync(target), readFileSync(exe), `${target} is not the binary of ${platformPkg}`);
  });

  test('each platform package holds the binary of its archive', (t) => {
    for (const [key, tgz] of Object.entries(tarballs.platforms)) {
      const win = key.startsWith('win32-');
      const [goos, goarch] = [win ? 'windows' : key.split('-')[0], key.endsWith('x64') ? 'amd64' : 'arm64'];
      const archive = join(dist, `toolhost_${goreleaserVersion}_${goos}_${goarch}.${win ? 'zip' : 'tar.gz'}`);
      // tar and unzip read the archive independently of build.mjs.
      let want;
      try {
        want = win
          ? run('unzip', ['-p', archive, 'toolhost.exe'], { encoding: 'buffer', maxBuffer: 1 << 30 })
          : run('tar', ['-xzOf', archive, tarEntry(archive, 'toolhost')], { encoding: 'buffer', maxBuffer: 1 << 30 });
      } catch (err) {
        if (!win || err.code !== 'ENOENT') throw err;
        t.diagnostic(`unzip is not installed: the ${key} package is not compared with its archive`);
        continue;
      }
      assert.equal(want.status, 0, `reading ${archive}: ${want.stderr}`);
      const got = run('tar', ['-xzOf', tgz, `package/bin/toolhost${win ? '.exe' : ''}`], { encoding: 'buffer', maxBuffer: 1 << 30 });
      assert.equal(got.status, 0, `reading ${tgz}: ${got.stderr}`);
      assert.ok(got.stdout.equals(want.stdout), `${tgz} does not hold the binary of ${archive}`);
    }
  });

  test('with install scripts off the launcher stays', () => {
    assert.ok(isScript(join(apps.launcher, 'node_modules', 'toolhost', 'bin', 'toolhost')));
  });
});

describe('the launcher', () => {
  const bare = () => join(apps.scripts, 'node_modules', '@toolhost', here, 'bin', windows ? 'toolhost.exe' : 'toolhost');

  for (const app of ['scripts', 'launcher']) {
    test(`${app}: toolhost version prints what the binary prints, and nothing more`, () => {
      const want = run(bare(), ['version']);
      assert.equal(want.status, 0, want.stderr);
      assert.match(want.stdout, new RegExp(`^toolhost ${goreleaserVersion.replace(/^v/, '').replace(/[.+]/g, '\\$&')}`));
      const got = run(bin(apps[app]), ['version']);
      assert.deepEqual([got.status, got.stdout, got.stderr], [0, want.stdout, want.stderr]);
    });

    test(`${app}: a usage error keeps its exit code 2 and its message`, () => {
      const got = run(bin(apps[app]), ['no-such-command']);
      assert.equal(got.status, 2, got.stderr);
      assert.equal(got.stdout, '');
      assert.match(got.stderr, /unknown command "no-such-command"/);
    });
  }

  test('without the platform package it says which package to add and why it may be missing', () => {
    assert.ok(!existsSync(join(apps.noOptional, 'node_modules', '@toolhost', here)), `--omit=optional installed ${platformPkg}`);
    const got = run(bin(apps.noOptional), ['version']);
    assert.equal(got.status, 1, got.stderr);
    assert.equal(got.stdout, '');
    for (const want of [here, `npm install ${platformPkg}@${version}`, '--omit=optional', '--no-optional']) {
      assert.ok(got.stderr.includes(want), `stderr lacks ${JSON.stringify(want)}:\n${got.stderr}`);
    }
  });

  describe('signals', { skip: windows && 'Windows has no signals to forward' }, () => {
    // toolhost installs its stop handlers after it answers initialize and
    // before it handles the next request: once the ping is answered, a
    // stop signal stops it in order.
    const session = [
      { jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'npm-test', version: '1.0.0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ].map((m) => `${JSON.stringify(m)}\n`).join('');

    /**
     * serving starts the launcher's serve, waits for the answer to the
     * session's ping and returns the launcher's process and a promise of
     * its { code, signal }.
     */
    const started = [];
    // A launcher that did not end is killed, and the binary's stdin
    // closed (which ends serve), so that a failure cannot hang the run.
    afterEach(() => {
      for (const p of started.splice(0)) {
        p.stdin.destroy();
        if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      }
    });

    async function serving() {
      const p = spawn(bin(apps.launcher), ['serve', toolsHCL], { stdio: ['pipe', 'pipe', 'pipe'] });
      started.push(p);
      const exited = once(p, 'exit').then(([code, signal]) => ({ code, signal }));
      let out = '';
      p.stdout.setEncoding('utf8');
      p.stderr.resume();
      p.stdin.write(session);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to ping within ${DEADLINE_MS} ms: ${out}`)), DEADLINE_MS);
        p.stdout.on('data', (d) => {
          out += d;
          if (out.includes('"id":2')) {
            clearTimeout(timer);
            resolve();
          }
        });
        exited.then((e) => reject(new Error(`launcher exited early: ${JSON.stringify(e)}`)));
      });
      return { p, exited };
    }

    /** withDeadline rejects if promise is not settled within DEADLINE_MS. */
    function withDeadline(what, promise) {
      let timer;
      return Promise.race([
        promise,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${what} within ${DEADLINE_MS} ms`)), DEADLINE_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    }

    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
      test(`${sig} reaches the binary, which stops in order (exit 0)`, async () => {
        const { p, exited } = await serving();
        p.kill(sig);
        // Without forwarding, the launcher (which handles the signal)
        // would wait for a binary that never stops.
        const e = await withDeadline(`the launcher did not end after ${sig}`, exited);
        assert.deepEqual(e, { code: 0, signal: null });
      });
    }

    test('a signal that kills the binary kills the launcher the same way', { skip: process.platform !== 'linux' && 'finding the child needs /proc' }, async () => {
      const { p, exited } = await serving();
      const children = readFileSync(`/proc/${p.pid}/task/${p.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      assert.equal(children.length, 1, `launcher ${p.pid} has children ${children}`);
      process.kill(Number(children[0]), 'SIGKILL');
      const e = await withDeadline('the launcher did not end after its binary was killed', exited);
      assert.deepEqual(e, { code: null, signal: 'SIGKILL' });
    });
  });
});

/**
 * drive starts `npx -y SPEC serve examples/tools.hcl` in cwd with env, as
 * an editor would, and has the TypeScript SDK client initialize, list
 * the tools and call one.
 */
async function drive(spec, cwd, env) {
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['-y', spec, 'serve', toolsHCL],
    cwd,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: 'toolhost-npm-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'toolhost-examples');
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'say_hello'), `tools: ${tools.map((t) => t.name)}`);
    const result = await client.callTool({ name: 'say_hello', arguments: { name: 'npm' } });
    assert.equal(okText(result), 'hello npm');
  } catch (err) {
    err.message += `\nserver stderr:\n${stderr}`;
    throw err;
  } finally {
    await client.close();
  }
}

describe('npx -y toolhost serve, driven by the TypeScript SDK client', () => {
  for (const app of ['scripts', 'launcher']) {
    test(`installed: ${app}`, async () => {
      const cache = join(work, `npx-cache-${app}`);
      await drive('toolhost', apps[app], npmEnv(cache));
      // npx ran the installed package: it fetched nothing into its cache.
      assert.ok(!existsSync(join(cache, '_npx')), `npx installed toolhost into ${cache}/_npx instead of using ${apps[app]}`);
    });
  }

  // The editor's case: nothing installed, npx fetches toolhost and this
  // platform's package from the registry (here one on 127.0.0.1 serving
  // the tarballs) into its cache, runs the install step there, and runs
  // the binary.
  test('nothing installed: through a registry', async () => {
    const registry = await startRegistry([tarballs.main, ...Object.values(tarballs.platforms)]);
    try {
      const cwd = await mkdtemp(join(work, 'npx-empty-'));
      const cache = join(work, 'npx-cache-registry');
      await drive('toolhost', cwd, { ...npmEnv(cache), npm_config_offline: 'false', npm_config_registry: registry.url });
      // npm asked for toolhost and the six platform packages, and nothing else.
      const asked = [...new Set(registry.requests)].sort();
      assert.deepEqual(asked, ['toolhost', ...['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64'].map((k) => `@toolhost/${k}`)].sort());
      if (!windows) {
        const [hash] = readdirSync(join(cache, '_npx'));
        const launcher = join(cache, '_npx', hash, 'node_modules', 'toolhost', 'bin', 'toolhost');
        assert.ok(!isScript(launcher), `the install step did not put the binary in place in npx's cache: ${launcher}`);
      }
    } finally {
      await registry.close();
    }
  });
});

describe('build.mjs', () => {
  const build = (...args) => run(process.execPath, [join(repo, 'npm', 'build.mjs'), ...args]);

  const cases = [
    { name: 'a version that is not semver', args: () => ['--dist', dist, '--version', '1.2', '--out', join(work, 'x')], status: 2, want: /"1\.2" is not a semantic version/ },
    { name: 'a missing archive', args: () => ['--dist', work, '--version', goreleaserVersion, '--out', join(work, 'x')], status: 1, want: /toolhost_.*_linux_amd64\.tar\.gz: no such archive/ },
    { name: 'an unknown platform', args: () => ['--dist', dist, '--version', goreleaserVersion, '--out', join(work, 'x'), '--only', 'plan9-x64'], status: 2, want: /unknown platform "plan9-x64"/ },
    { name: 'no --out', args: () => ['--dist', dist, '--version', goreleaserVersion], status: 2, want: /--out is missing/ },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const r = build(...c.args());
      assert.equal(r.status, c.status, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, c.want);
    });
  }

  test('a snapshot version stays valid semver', async () => {
    const { npmVersion } = await import(pathToFileURL(join(repo, 'npm', 'build.mjs')).href);
    assert.equal(npmVersion('0.1.1-SNAPSHOT-abc1234'), '0.1.1-SNAPSHOT-abc1234');
    assert.equal(npmVersion('v1.2.3'), '1.2.3');
    assert.equal(npmVersion('1.2.3+abc'), '1.2.3');
    assert.throws(() => npmVersion('1.2.03'), /not a semantic version/);
  });
});

// README's two commands, from nothing to an editor entry: npm install -g
// toolhost (here from the registry on 127.0.0.1), then toolhost setup in
// an empty directory, which writes the starter tools.hcl and an entry
// that names the stable link npm put on PATH; the TypeScript SDK client
// then starts the entry as the editor would, from another directory.
/**
 * runAsync runs a command to its end without blocking the event loop (the
 * registry on 127.0.0.1 runs in this process), and returns { status,
 * stdout, stderr }; it kills the command after two minutes.
 */
async function runAsync(cmd, args, opts = {}) {
  const p = spawn(cmd, args, { shell: windows, ...opts });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => {
    stdout += d;
  });
  p.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
  const [status] = await once(p, 'close');
  clearTimeout(timer);
  return { status, stdout, stderr };
}

describe('install, then setup', () => {
  let registry;
  before(async () => {
    registry = await startRegistry([tarballs.main, ...Object.values(tarballs.platforms)]);
  });
  after(async () => {
    await registry?.close();
  });
  const registryEnv = (name) => ({ ...npmEnv(join(work, `cache-${name}`)), npm_config_offline: 'false', npm_config_registry: registry.url });

  test('npm install -g toolhost, then toolhost setup cursor', { skip: windows && 'the entry names toolhost.exe inside node_modules on Windows' }, async () => {
    const prefix = join(work, 'global');
    const r = await runAsync('npm', ['install', '-g', '--prefix', prefix, 'toolhost'], { env: registryEnv('global') });
    assert.equal(r.status, 0, `npm install -g toolhost failed:\n${r.stdout}\n${r.stderr}`);
    const binDir = join(prefix, 'bin');
    const toolhost = join(binDir, 'toolhost');
    const home = await mkdtemp(join(work, 'home-'));
    const proj = realpathSync(await mkdtemp(join(work, 'proj-')));
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', PATH: `${binDir}${delimiter}${process.env.PATH}` };
    const s = run(toolhost, ['setup', 'cursor'], { cwd: proj, env });
    assert.equal(s.status, 0, `toolhost setup cursor failed:\n${s.stdout}\n${s.stderr}`);
    assert.match(s.stdout, /^Wrote .*tools\.hcl, a starter config/m);
    assert.doesNotMatch(s.stderr, /node_modules/, 'setup warned about a path that is the stable link');
    const entry = JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers.toolhost;
    assert.deepEqual(entry, { command: toolhost, args: ['serve', join(proj, 'tools.hcl')] });

    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: work, stderr: 'pipe' });
    const client = new Client({ name: 'toolhost-npm-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'greet'), `the starter's tools: ${tools.map((t) => t.name)}`);
      assert.equal(okText(await client.callTool({ name: 'greet', arguments: { name: 'npm' } })), 'Hello, npm!');
    } finally {
      await client.close();
    }
  });

  test('npx -y toolhost setup cursor writes the npx form, not a path in npx\'s cache', async () => {
    const home = await mkdtemp(join(work, 'home-'));
    const proj = realpathSync(await mkdtemp(join(work, 'proj-')));
    const s = await runAsync('npx', ['-y', 'toolhost', 'setup', 'cursor'], { cwd: proj, env: { ...registryEnv('npx-setup'), HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: '' } });
    assert.equal(s.status, 0, `npx -y toolhost setup cursor failed:\n${s.stdout}\n${s.stderr}`);
    assert.match(s.stderr, /runs from npx's cache/, `stdout:\n${s.stdout}`);
    const entry = JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8')).mcpServers.toolhost;
    const want = ['-y', 'toolhost', 'serve', join(proj, 'tools.hcl')];
    assert.deepEqual(entry, windows ? { command: 'cmd', args: ['/c', 'npx', ...want] } : { command: 'npx', args: want });
  });
});
