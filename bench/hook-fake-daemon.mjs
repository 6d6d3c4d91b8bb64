// A stand-in for `hermes daemon run` in the hook benchmark (bench/hook.mjs), for builds without
// one: it listens on the socket given and acknowledges and answers every event at once with the
// answer given, as the protocol has it (src/host/daemon/protocol.ts), so what is measured is the
// hook client's own cost.
import { createServer } from 'node:net';
import { DAEMON_ACK, DAEMON_PROTOCOL } from '../dist/host/daemon/protocol.js';

const [path, answer] = process.argv.slice(2);
const line = `${DAEMON_ACK}\n${JSON.stringify({ v: DAEMON_PROTOCOL, ...JSON.parse(answer) })}\n`;
createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', () => socket.end(line));
}).listen(path);
