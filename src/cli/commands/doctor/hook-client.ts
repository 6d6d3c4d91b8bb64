import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { hermesCommand } from '../../../command-name.js';
import type { CommandHookAgent } from '../../../host/command-hook/agents.js';
import type { InstalledHook } from '../../../host/command-hook/installed.js';
import { PERL, PERL_CLIENT_FILE } from '../../../host/command-hook/perl-step.js';

/** What an installed hook's calls a warm daemon answers cost: told with the hook's own line. */
export type HookClient = { used: string } | { info: string; fix: string } | undefined;

/**
 * Whether the calls of a hook in the user's settings that a warm daemon answers start Node or not
 * (docs/command-hooks.md, "The Perl hook client"): the current program asks through the Perl
 * client first, when `perl` (PERL, by its path, as the program runs it) can run and the package
 * the hook runs has the client (`<package>/dist/hook-client.pl`, as the program finds it from
 * `<package>/bin/hermes.js`). Said of the user form only: the project form runs the PATH's Node,
 * which the Perl client cannot name, and so never uses it. Undefined: nothing worth a word.
 */
export function hookClient(
  agent: CommandHookAgent,
  hook: InstalledHook,
  perl: string = PERL,
): HookClient {
  if (hook.project || !hook.failsClosed || !hook.pinned) return undefined;
  const fix = `${hermesCommand()} hook install ${agent.name}`;
  if (!hook.current) {
    return {
      info: `its program is of an earlier version, which starts Node for every call: the current one asks a warm daemon through the Perl hook client first, without starting Node`,
      fix,
    };
  }
  const bin = hook.argv[1] ?? '';
  const at = bin.lastIndexOf('/bin/');
  const client = at < 0 ? undefined : join(bin.slice(0, at), 'dist', PERL_CLIENT_FILE);
  if (client === undefined || !existsSync(client)) {
    return {
      info: `each call starts Node, even one a warm daemon answers: the package it runs has no ${client ?? `dist/${PERL_CLIENT_FILE}`} (a build without the Perl hook client)`,
      fix: 'npm run build in the package, or install it anew',
    };
  }
  if (!runs(perl)) {
    return {
      info: `each call starts Node, even one a warm daemon answers (the Perl hook client answers those without Node): ${perl} is not there`,
      fix: `install Perl as ${perl} (Alpine: apk add perl; most Linux and macOS have it)`,
    };
  }
  return { used: `a warm daemon answers through the Perl hook client (${perl}), no Node started` };
}

function runs(program: string): boolean {
  try {
    accessSync(program, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
