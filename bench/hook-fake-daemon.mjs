// A stand-in for `hermes daemon run` in the hook benchmark (bench/hook.mjs), for builds without
// one: it listens on the socket given and answers every event at once with the answer given, so
// what is measured is the hook client's own cost.
import { createServer } from 'node:net';

const [path, answer] = process.argv.slice(2);
const line = `${JSON.stringify({ v: 1, ...JSON.parse(answer) })}\n`;
createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', () => socket.end(line));
}).listen(path);
