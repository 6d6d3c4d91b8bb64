// V8's code cache of a CommonJS file the framework runs at every start of something: the hook
// client, in each hook process (bin/hermes.js), and the worker's bundle, in each runtime thread of
// the hook daemon (daemon-worker.cjs). Compiling their functions is a part of each start that a
// cache skips (docs/command-hooks.md, "Code caches").
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const { dirname } = require('node:path');
const { Script } = require('node:vm');

/**
 * Runs the CommonJS `file` as `require` would, compiled from `cacheFile` when that is V8's cache
 * of this very file and V8 accepts it (another V8, other flags: refused). The cache's first line
 * names the file it was made from (size, modification time, inode). Returns the file's exports,
 * and `save` when no cache was used: called once what the file runs has been compiled, it makes
 * the cache, with those functions in it.
 *
 * The cache lives beside the file, in the package, where the file itself is protected ground: a
 * package it cannot write to keeps none. Any V8 flag given (NODE_OPTIONS, which the installed hook
 * unsets, or the command line), and a file or cache that cannot be read or compiled: plainly
 * required, with no cache.
 */
function requireCached(file, cacheFile) {
  if (process.execArgv.length > 0 || process.env.NODE_OPTIONS) return { exports: require(file) };
  let compiled;
  try {
    compiled = compile(file, cacheFile);
  } catch {
    return { exports: require(file) };
  }
  const { script, made, cached } = compiled;
  const module = { exports: {}, filename: file, id: file, loaded: false };
  const run = script.runInThisContext();
  run.call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file));
  module.loaded = true;
  const fresh = cached === undefined || script.cachedDataRejected;
  return fresh
    ? { exports: module.exports, save: () => save(cacheFile, made, script) }
    : { exports: module.exports };
}

function compile(file, cacheFile) {
  const fd = fs.openSync(file, 'r');
  let source;
  let made;
  try {
    const stats = fs.fstatSync(fd);
    made = `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
    source = fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
  let cached;
  try {
    const bytes = fs.readFileSync(cacheFile);
    const end = bytes.indexOf(10);
    if (end > 0 && bytes.toString('latin1', 0, end) === made) cached = bytes.subarray(end + 1);
  } catch {}
  const script = new Script(Module.wrap(source), {
    filename: file,
    ...(cached === undefined ? {} : { cachedData: cached }),
  });
  return { script, made, cached };
}

/** Written whole or not at all (two processes may write it at once). */
function save(cacheFile, made, script) {
  const temporary = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.writeFileSync(
      temporary,
      Buffer.concat([Buffer.from(`${made}\n`), script.createCachedData()]),
    );
    fs.renameSync(temporary, cacheFile);
  } catch {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {}
  }
}

module.exports = { requireCached };
