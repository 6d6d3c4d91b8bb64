import { spawnSync } from 'node:child_process';
import type { CommandHookAgent } from './agents.js';

/** An agent's version as major, minor, patch. */
export type Version = readonly [number, number, number];

/**
 * The version the agent's own command line reports (`claude --version`), or undefined when it is
 * not on the PATH, does not answer within 5 s, or prints no version: then nothing is assumed.
 */
export function installedAgentVersion(program: string): Version | undefined {
  return askAgentVersion(program).version;
}

/** What `program --version` answered: `found` false when there is no such program on the PATH. */
export function askAgentVersion(program: string): { found: boolean; version?: Version } {
  const run = spawnSync(program, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return { found: false };
  const found = typeof run.stdout === 'string' ? /(\d+)\.(\d+)\.(\d+)/.exec(run.stdout) : null;
  return found === null
    ? { found: true }
    : { found: true, version: [Number(found[1]), Number(found[2]), Number(found[3])] };
}

export const older = (a: Version, b: Version): boolean =>
  a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];

/**
 * The events to register with an agent of `version`, and the ones left out because that version
 * would not read the whole settings file with them in it (an event it does not know makes an old
 * Claude Code ignore every hook there, so no call would be checked).
 */
export function installableEvents(
  agent: CommandHookAgent,
  version: Version | undefined,
): { events: string[]; leftOut: string[] } {
  const leftOut =
    version === undefined
      ? []
      : Object.entries(agent.eventsNeedVersion ?? {})
          .filter(([, since]) => older(version, since))
          .map(([event]) => event);
  return { events: agent.installEvents.filter((e) => !leftOut.includes(e)), leftOut };
}
