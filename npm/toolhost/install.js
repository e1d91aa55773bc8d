'use strict';
// install.js runs after npm installs the toolhost package. Where it can,
// it replaces the JS launcher bin/toolhost with the platform package's
// binary (a hard link, or a copy where links fail), so that
// node_modules/.bin/toolhost and npx start the binary directly instead of
// starting Node.js first. It never fails the install: whatever goes wrong,
// the launcher stays and either runs the binary or says what is missing.
// Windows keeps the launcher: npm's .cmd and .ps1 shims there run
// `node bin/toolhost`, which must stay JavaScript.

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { binaryPath } = require('./platform.js');

function optimize() {
  // Windows's shims and Yarn's Plug'n'Play run bins through node.
  if (process.platform === 'win32' || process.versions.pnp) return;
  let bin;
  try {
    bin = binaryPath();
  } catch {
    return; // no platform package: the launcher explains when run
  }
  // Only a binary that runs here replaces the launcher: one that does not
  // (a wrong architecture, a noexec file system) must keep it, whose
  // message says more than the shell's would.
  const out = execFileSync(bin, ['version'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 }).toString();
  if (!out.startsWith('toolhost ')) throw new Error(`${bin} version printed ${JSON.stringify(out)}`);

  const launcher = path.join(__dirname, 'bin', 'toolhost');
  const temp = `${launcher}.install-${process.pid}`;
  try {
    fs.linkSync(bin, temp);
  } catch {
    fs.copyFileSync(bin, temp);
    fs.chmodSync(temp, 0o755);
  }
  // The rename replaces the launcher at once: bin/toolhost is the
  // launcher or the binary, never a half-written file.
  try {
    fs.renameSync(temp, launcher);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

try {
  optimize();
} catch (err) {
  // npm shows this only with --foreground-scripts or a failed install;
  // the install goes on with the launcher.
  process.stderr.write(`toolhost: kept the JS launcher (startup goes through Node.js): ${err.message}\n`);
}
