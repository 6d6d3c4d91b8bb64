import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryLogger } from 'hermes-extensions/testing';
import { describe, expect, it } from 'vitest';
import { daemonLog, parseDaemonLog } from '../../../src/host/daemon/daemon-log.js';
import { LateNotices } from '../../../src/host/daemon/late-notices.js';
import { tree } from '../../support/fixtures.js';

describe('the hook daemon log file', () => {
  it('stamps each line, keeps a message of several lines together, and reads back', () => {
    const home = tree();
    const log = daemonLog(home);
    log.warn('first');
    log.error('second\nwith a stack line');
    log.debug('not without HERMES_DEBUG');
    const text = readFileSync(join(home, 'logs', 'daemon.log'), 'utf8');
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z pid=\d+ warn first\n/);
    expect(parseDaemonLog(text)).toEqual([
      { at: expect.any(String), pid: process.pid, level: 'warn', message: 'first' },
      {
        at: expect.any(String),
        pid: process.pid,
        level: 'error',
        message: 'second\nwith a stack line',
      },
    ]);
  });

  it('rotates by size, keeping `keep` old files, newest first, and loses no line', () => {
    const home = tree();
    const log = daemonLog(home, { maxBytes: 200, keep: 2 });
    for (let i = 1; i <= 12; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
    const file = join(home, 'logs', 'daemon.log');
    const read = (path: string) => parseDaemonLog(readFileSync(path, 'utf8')).map((l) => l.message);
    const current = read(file);
    const older = read(`${file}.1`);
    const oldest = read(`${file}.2`);
    expect(existsSync(`${file}.3`)).toBe(false);
    for (const path of [file, `${file}.1`, `${file}.2`]) {
      expect(statSync(path).size).toBeLessThanOrEqual(200);
    }
    // The newest lines, in order, without a gap: what is gone is only what is past `keep` files.
    const kept = [...oldest, ...older, ...current].map((m) => Number(m.split(' ')[1]));
    expect(kept.at(-1)).toBe(12);
    expect(kept).toEqual(kept.map((_, i) => kept[0] + i));
  });

  it('makes the folder 0700 and the file 0600, also when they were looser', () => {
    const home = tree({ 'logs/daemon.log': '' });
    const file = join(home, 'logs', 'daemon.log');
    writeFileSync(file, '', { mode: 0o644 });
    daemonLog(home).info('hello');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'logs')).mode & 0o777).toBe(0o700);
  });

  it('never throws when the log cannot be written: the line goes to its other sink, with why once', () => {
    const home = tree({ logs: 'a file where the folder should be' });
    const other = memoryLogger();
    const log = daemonLog(home, { alsoTo: other });
    log.warn('one');
    log.warn('two');
    expect(other.lines).toEqual([
      expect.objectContaining({ level: 'error', message: expect.stringMatching(/cannot write/) }),
      expect.objectContaining({ level: 'warn', message: 'one' }),
      expect.objectContaining({ level: 'warn', message: 'two' }),
    ]);
  });
});

describe('LateNotices', () => {
  it("tells a session's lines once, to that session only, and a runtime's to its next answer", () => {
    const notices = new LateNotices();
    notices.add('project-a', 's1', 'of s1');
    notices.add('project-a', undefined, 'of the runtime');
    expect(notices.take('project-b', 's2', 'LOG')).toBe('');
    const told = notices.take('project-a', 's2', 'LOG');
    expect(told).toContain('of the runtime');
    expect(told).not.toContain('of s1');
    expect(notices.take('project-a', 's1', 'LOG')).toMatch(
      /this session \(also in LOG\):\nof s1\n$/,
    );
    expect(notices.take('project-a', 's1', 'LOG')).toBe('');
    expect(notices.empty).toBe(true);
  });

  it('keeps a bounded number of lines per session, and counts the rest', () => {
    const notices = new LateNotices();
    for (let i = 0; i < 50; i++) notices.add('p', 's', `line ${i}`);
    const told = notices.take('p', 's', 'LOG');
    expect(told).toContain('line 19');
    expect(told).not.toContain('line 20');
    expect(told).toContain('… and 30 more line(s) in the log');
  });
});
