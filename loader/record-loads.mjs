// A module load hook for the hook daemon's runtime workers (src/host/daemon/read-recorder.ts):
// reports every file Node's ES module loader reads — a JavaScript extension and the modules and
// JSON files it imports — with a stamp taken before the read and the digest of what was read, so
// the daemon knows when the code a runtime runs changed. Registered in a worker next to the
// framework's resolve hooks (loader/resolve-hooks.mjs); `data.port` is where it reports, and a
// `{ settled: id }` message is echoed once everything before it has been reported.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let port;

export function initialize(data) {
  port = data?.port;
  port?.on('message', (message) => port.postMessage(message));
}

export async function load(url, context, nextLoad) {
  if (port === undefined || !url.startsWith('file:')) return nextLoad(url, context);
  const path = fileURLToPath(new URL(url).href.split(/[?#]/)[0]);
  // As src/host/daemon/read-stamps.ts stamps a file: taken before the read.
  const stamp = stampOf(path);
  const loaded = await nextLoad(url, context);
  // CommonJS comes without its source here: Node reads it through node:fs, recorded there.
  if (loaded.source != null) {
    const text = typeof loaded.source === 'string';
    const bytes = text ? loaded.source : Buffer.from(loaded.source);
    const digest = createHash('sha256').update(bytes).digest('hex');
    port.postMessage({
      how: 'read',
      path,
      value: stamp,
      digest,
      ...(text ? { encoding: 'utf8' } : {}),
    });
  }
  return loaded;
}

function stampOf(path) {
  try {
    const stats = statSync(path);
    return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch {
    return 'missing';
  }
}
