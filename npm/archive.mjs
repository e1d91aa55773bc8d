// archive.mjs reads one file out of a release archive, .tar.gz or .zip,
// with nothing but Node.js: zlib's gunzip and raw inflate, and the two
// formats' headers (ustar with pax and GNU long names; zip's central
// directory, stored or deflated entries, no zip64).

import { readFileSync } from 'node:fs';
import { gunzipSync, inflateRawSync } from 'node:zlib';

/**
 * readArchiveFile returns the contents of the file called name at the
 * root of archive (a leading "./" is ignored), or throws an Error naming
 * the archive and what it holds instead.
 */
export function readArchiveFile(archive, name) {
  const data = readFileSync(archive);
  const zip = archive.endsWith('.zip');
  const names = [];
  try {
    for (const e of zip ? zipEntries(data) : tarEntries(gunzipSync(data))) {
      const n = e.name.replace(/^\.\//, '');
      if (n === name) return e.read();
      names.push(n);
    }
  } catch (err) {
    throw new Error(`${archive}: not a readable ${zip ? 'zip' : 'tar.gz'} archive: ${err.message}`);
  }
  throw new Error(
    `${archive} has no ${name} at its root (it holds ${names.slice(0, 10).join(', ') || 'nothing'}` +
      `${names.length > 10 ? ', ...' : ''}); the release archives must hold the binary next to README.md`);
}

/** tarEntries yields the regular files of an uncompressed tar archive. */
function* tarEntries(tar) {
  let longName = null;
  for (let off = 0; off + 512 <= tar.length; ) {
    const h = tar.subarray(off, off + 512);
    if (h.every((b) => b === 0)) return; // end of archive
    const size = tarNumber(h.subarray(124, 136));
    const type = String.fromCharCode(h[156] || 0x30);
    const body = off + 512;
    if (body + size > tar.length) throw new Error(`entry at offset ${off} runs past the end`);
    const content = tar.subarray(body, body + size);
    off = body + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = cString(content);
      continue;
    }
    if (type === 'x') {
      const path = paxPath(content.toString('utf8'));
      if (path !== null) longName = path;
      continue;
    }
    if (type === 'g') continue;
    let name = cString(h.subarray(0, 100));
    if (h.subarray(257, 262).toString('latin1') === 'ustar') {
      const prefix = cString(h.subarray(345, 500));
      if (prefix) name = `${prefix}/${name}`;
    }
    if (longName !== null) name = longName;
    longName = null;
    if (type === '0' || type === '7') yield { name, read: () => Buffer.from(content) };
  }
}

/** tarNumber decodes a tar header's number: octal text, or base-256 when the top bit is set. */
function tarNumber(field) {
  if (field[0] & 0x80) {
    let n = field[0] & 0x7f;
    for (const b of field.subarray(1)) n = n * 256 + b;
    return n;
  }
  const s = cString(field).trim();
  return s ? parseInt(s, 8) : 0;
}

function cString(buf) {
  const end = buf.indexOf(0);
  return buf.subarray(0, end < 0 ? buf.length : end).toString('utf8');
}

/** paxPath returns the path record of a pax extended header, or null. */
function paxPath(text) {
  // Each record is "LENGTH key=value\n".
  for (let i = 0; i < text.length; ) {
    const sp = text.indexOf(' ', i);
    const len = parseInt(text.slice(i, sp), 10);
    if (sp < 0 || !(len > 0)) break;
    const record = text.slice(sp + 1, i + len - 1);
    if (record.startsWith('path=')) return record.slice(5);
    i += len;
  }
  return null;
}

/** zipEntries yields the entries of a zip archive, from its central directory. */
function* zipEntries(zip) {
  // The end of central directory record is in the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let off = zip.readUInt32LE(eocd + 16);
  for (let k = 0; k < count; k++) {
    if (zip.readUInt32LE(off) !== 0x02014b50) throw new Error(`bad central directory entry at offset ${off}`);
    const method = zip.readUInt16LE(off + 10);
    const compressed = zip.readUInt32LE(off + 20);
    const size = zip.readUInt32LE(off + 24);
    const nameLen = zip.readUInt16LE(off + 28);
    const local = zip.readUInt32LE(off + 42);
    const name = zip.subarray(off + 46, off + 46 + nameLen).toString('utf8');
    off += 46 + nameLen + zip.readUInt16LE(off + 30) + zip.readUInt16LE(off + 32);
    if (name.endsWith('/')) continue;
    yield {
      name,
      read: () => {
        if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) {
          throw new Error(`${name}: zip64 entries are not supported`);
        }
        if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`${name}: bad local header at offset ${local}`);
        const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
        const raw = zip.subarray(start, start + compressed);
        let out;
        if (method === 0) out = Buffer.from(raw);
        else if (method === 8) out = inflateRawSync(raw);
        else throw new Error(`${name}: compression method ${method} is not supported (only stored and deflate)`);
        if (out.length !== size) throw new Error(`${name}: unpacked to ${out.length} bytes, the directory says ${size}`);
        return out;
      },
    };
  }
}
