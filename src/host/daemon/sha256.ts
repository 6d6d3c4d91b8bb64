/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as hex: what names the hook daemon's socket
 * (protocol.ts, `daemonKey`). Here rather than `node:crypto` because the hook client computes the
 * name on every call of the agent, and loading `node:crypto` is a few percent of a bare Node start
 * (BENCHMARKS.md, "Hook call"). The daemon and the command line use the same function, so every
 * side agrees on the name; test/host/daemon/sha256.test.ts holds it to `node:crypto`'s digest.
 *
 * Written for a process that runs it once, in V8's interpreter: no helper calls (the rotations
 * written out), no destructuring, no Buffer methods per word, the state in local variables. The
 * plain form took 1.1–1.7 ms there for a 400-byte name; this one 0.5 ms (BENCHMARKS.md, "The
 * daemon's answer").
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
export const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The first 32 bits of the fractional parts of the square roots of the first 8 primes. */
export const H0 = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

export function sha256Hex(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  const n = bytes.length;
  // The message as big-endian words, a 1 bit, zeros, and its length in bits as 64 bits: a whole
  // number of 16-word blocks.
  const words = new Int32Array(((n + 9 + 63) >>> 6) << 4);
  for (let i = 0; i < n; i++) words[i >> 2] |= (bytes[i] as number) << (24 - ((i & 3) << 3));
  words[n >> 2] |= 0x80 << (24 - ((n & 3) << 3));
  words[words.length - 2] = Math.floor(n / 0x2000_0000);
  words[words.length - 1] = n << 3;

  let h0 = H0[0] as number;
  let h1 = H0[1] as number;
  let h2 = H0[2] as number;
  let h3 = H0[3] as number;
  let h4 = H0[4] as number;
  let h5 = H0[5] as number;
  let h6 = H0[6] as number;
  let h7 = H0[7] as number;
  const w = new Int32Array(64);
  for (let block = 0; block < words.length; block += 16) {
    for (let t = 0; t < 16; t++) w[t] = words[block + t] as number;
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15] as number;
      const y = w[t - 2] as number;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = (w[t - 16] as number) + s0 + (w[t - 7] as number) + s1;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let t = 0; t < 64; t++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + s1 + ch + (K[t] as number) + (w[t] as number)) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  let hex = '';
  for (const word of [h0, h1, h2, h3, h4, h5, h6, h7])
    hex += (word >>> 0).toString(16).padStart(8, '0');
  return hex;
}
