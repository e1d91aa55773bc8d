'use strict';
// platform.js maps the running platform to the package that holds its
// toolhost binary, and finds that binary. The launcher (bin/toolhost), the
// install script (install.js) and the generator (../build.mjs) share it.

/** PLATFORMS lists every platform package: npm's os/cpu and GoReleaser's GOOS/GOARCH. */
const PLATFORMS = [
  { os: 'linux', cpu: 'x64', goos: 'linux', goarch: 'amd64' },
  { os: 'linux', cpu: 'arm64', goos: 'linux', goarch: 'arm64' },
  { os: 'darwin', cpu: 'x64', goos: 'darwin', goarch: 'amd64' },
  { os: 'darwin', cpu: 'arm64', goos: 'darwin', goarch: 'arm64' },
  { os: 'win32', cpu: 'x64', goos: 'windows', goarch: 'amd64' },
  { os: 'win32', cpu: 'arm64', goos: 'windows', goarch: 'arm64' },
].map((p) => ({
  ...p,
  key: `${p.os}-${p.cpu}`,
  pkg: `@toolhost/${p.os}-${p.cpu}`,
  // bin is the binary's path inside the platform package.
  bin: p.os === 'win32' ? 'bin/toolhost.exe' : 'bin/toolhost',
}));

/** currentPlatform returns the entry of PLATFORMS for this machine, or undefined. */
function currentPlatform() {
  return PLATFORMS.find((p) => p.os === process.platform && p.cpu === process.arch);
}

/**
 * binaryPath returns the path of the toolhost binary for this machine, or
 * throws an Error whose message says what is missing and how to get it.
 */
function binaryPath() {
  const { version, homepage } = require('./package.json');
  const here = `${process.platform}-${process.arch}`;
  const p = currentPlatform();
  if (!p) {
    throw new Error(
      `toolhost: there is no prebuilt toolhost binary for ${here} on npm ` +
        `(there is one for ${PLATFORMS.map((q) => q.key).join(', ')}).\n` +
        `Build it from source with Go instead: ${homepage}`);
  }
  try {
    return require.resolve(`${p.pkg}/${p.bin}`);
  } catch {
    throw new Error(
      `toolhost: the toolhost binary for ${here} is missing: the package ${p.pkg} is not installed.\n` +
        `npm installs it as an optional dependency of toolhost, so it is left out when optional dependencies are omitted\n` +
        `(npm install --omit=optional or --no-optional, the npm config "omit=optional", or a package-lock.json made on another\n` +
        `platform). Install it next to toolhost:\n` +
        `    npm install ${p.pkg}@${version}\n` +
        `or install toolhost again with optional dependencies: npm install toolhost@${version} --include=optional\n` +
        `(with a lockfile from another platform, delete node_modules and package-lock.json first).`);
  }
}

module.exports = { PLATFORMS, currentPlatform, binaryPath };
