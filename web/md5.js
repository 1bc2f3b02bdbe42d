// md5.js - MD5 (RFC 1321) of a byte array, as lowercase hex: what FFmpeg's framemd5 writes
// for each frame. Plain JavaScript, for the playground's test mode (web/worker.js).
'use strict';

const MD5_S = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
               5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
               4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
               6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21];
const MD5_K = new Int32Array(64);
for (let i = 0; i < 64; i++)
  MD5_K[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 4294967296) | 0;

function md5Block(st, w) {
  let a = st[0], b = st[1], c = st[2], d = st[3];
  for (let i = 0; i < 64; i++) {
    let f, g;
    if (i < 16) { f = (b & c) | (~b & d); g = i; }
    else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) & 15; }
    else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) & 15; }
    else { f = c ^ (b | ~d); g = (7 * i) & 15; }
    const t = d;
    d = c;
    c = b;
    const x = (a + f + MD5_K[i] + w[g]) | 0;
    b = (b + ((x << MD5_S[i]) | (x >>> (32 - MD5_S[i])))) | 0;
    a = t;
  }
  st[0] = (st[0] + a) | 0;
  st[1] = (st[1] + b) | 0;
  st[2] = (st[2] + c) | 0;
  st[3] = (st[3] + d) | 0;
}

function md5Hex(bytes) {
  const st = new Int32Array([0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476]);
  const w = new Int32Array(16);
  const n = bytes.length;
  const full = n - (n % 64);
  for (let off = 0; off < full; off += 64) {
    for (let j = 0; j < 16; j++) {
      const p = off + j * 4;
      w[j] = bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16) | (bytes[p + 3] << 24);
    }
    md5Block(st, w);
  }
  // the tail: the rest, 0x80, zeros, the length in bits (64-bit little-endian)
  const tail = new Uint8Array(n % 64 < 56 ? 64 : 128);
  tail.set(bytes.subarray(full));
  tail[n % 64] = 0x80;
  const bits = n * 8; // exact below 2^53
  for (let j = 0; j < 8; j++)
    tail[tail.length - 8 + j] = Math.floor(bits / Math.pow(2, 8 * j)) & 255;
  for (let off = 0; off < tail.length; off += 64) {
    for (let j = 0; j < 16; j++) {
      const p = off + j * 4;
      w[j] = tail[p] | (tail[p + 1] << 8) | (tail[p + 2] << 16) | (tail[p + 3] << 24);
    }
    md5Block(st, w);
  }
  let hex = '';
  for (let i = 0; i < 4; i++)
    for (let j = 0; j < 4; j++)
      hex += ((st[i] >>> (8 * j)) & 255).toString(16).padStart(2, '0');
  return hex;
}

if (typeof module !== 'undefined')
  module.exports = { md5Hex };
