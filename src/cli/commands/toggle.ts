import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { hermesCommand } from '../../command-name.js';
import { findProjectConfig } from '../../config/find-project-config.js';
import { findProjectRoot } from '../../config/locations.js';
import { didYouMean } from '../../config/suggest.js';
import { editYamlList } from '../../config/yaml-list.js';
import { underFileLock } from '../../fs/locked-file.js';
import { insideRelative } from '../../fs/paths.js';
import { rewriteUserFile } from '../../fs/user-file.js';
import { untrustedStanding, whyUntrusted } from '../../trust/project-trust.js';
import { type TrustedEdit, writeTrustedEdit } from '../../trust/trusted-edit.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { cwdFlag } from '../cwd-flag.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes extensions enable|disable NAME [--project]`: edits `extensions.disabled` in
 * `$HERMES_HOME/config.yaml` (or the project's `.hermes/config.yaml`), changing only the lines of
 * that list. The project's config is covered by its trust: the edit says what became of it.
 */
export async function toggleCommand(
  context: CommandContext,
  name: string,
  enable: boolean,
  options: { project?: boolean },
  io: Io,
) {
  const { runtime } = await loadForCommand(context);
  // Only the names and states of what loaded are needed: the extensions can let go at once.
  await runtime.close();
  const known = [...new Set(runtime.extensions.map((e) => e.name))];
  if (!known.includes(name)) {
    const suggestion = didYouMean(name, known);
    const hint = suggestion ? ` Did you mean "${suggestion}"?` : '';
    throw new CliError(
      `unknown extension "${name}".${hint} Known: ${known.length > 0 ? known.join(', ') : 'none'} (see ${hermesCommand()} extensions list).`,
      2,
    );
  }
  // A name in `disabled` would be ignored (docs/teams.md, Managed policy): refused, not written.
  if (!enable && runtime.extensions.some((e) => e.name === name && e.managed)) {
    throw new CliError(
      `${name} is managed: the machine's managed config runs it, and no config of the user's or the project's can disable it. Ask the admin of the managed config.`,
      2,
    );
  }
  const file = options.project ? projectConfigFile(context) : join(context.home, 'config.yaml');
  // Read, edited and written with the file's lock held: two edits at once both land.
  const changed = await underFileLock(file, async () => {
    let previous: Buffer | undefined;
    try {
      if (existsSync(file)) previous = readFileSync(file);
    } catch (error) {
      // A read error does not name the file (EISDIR): this does.
      throw new CliError(`cannot read ${file}: ${(error as Error).message.split('\n')[0]}`, 2);
    }
    let edit: ReturnType<typeof editYamlList>;
    try {
      edit = editYamlList(
        previous?.toString('utf8') ?? '',
        ['extensions', 'disabled'],
        name,
        !enable,
      );
    } catch (error) {
      throw new CliError(`cannot edit ${file}: ${(error as Error).message}`, 2);
    }
    const { changed } = edit;
    const verb = enable ? 'Enabled' : 'Disabled';
    if (!changed) {
      io.out(
        `${name} is ${enable ? 'not' : 'already'} in extensions.disabled of ${file}; nothing changed.`,
      );
    } else if (options.project) {
      const trust = await writeTrustedEdit({
        cwd: context.cwd,
        home: context.home,
        file,
        previous,
        next: Buffer.from(edit.text),
      });
      io.out(`${verb} ${name} in ${file}.`);
      tellTrust(io, trust);
    } else {
      // Whole: a hook reading the config between a truncation and the write would find no
      // guards at all in it.
      rewriteUserFile(file, edit.text);
      io.out(`${verb} ${name} in ${file}. It takes effect on the next session.`);
    }
    return changed;
  });
  const disabledElsewhere = runtime.extensions.some(
    (e) => e.name === name && e.status === 'disabled',
  );
  if (enable && !changed && disabledElsewhere) {
    io.out(
      `Note: ${name} is disabled by another config file; \`disabled\` in any of them wins (or \`enabled: false\` switches all off).`,
    );
  }
  return 0;
}

/**
 * The project config `--project` edits: `.hermes/config.yaml` (or `.yml`) at the project root.
 * Refused when another file is the project's config, which is read instead (docs/configuration.md).
 */
function projectConfigFile(context: CommandContext): string {
  const root = findProjectRoot(context.cwd, context.home);
  const yaml = join(root, '.hermes', 'config.yaml');
  const found = findProjectConfig(context.cwd, root)?.file;
  if (found !== undefined && found !== yaml && found !== join(root, '.hermes', 'config.yml')) {
    throw new CliError(
      `the project's config is ${found}, which is read instead of ${yaml}: edit extensions.disabled there`,
      2,
    );
  }
  const file = found ?? yaml;
  // A cloned repository may make the file, or `.hermes`, a link to one of the user's files:
  // never write through a link that leads out of the project (or nowhere).
  const realRoot = realpathSync(root);
  for (const path of [join(root, '.hermes'), file]) {
    if (leadsOut(path, realRoot)) {
      throw new CliError(`${path} is a link that leads outside the project; refused`, 2);
    }
  }
  return file;
}

/** Whether `path` is a link to a place outside `realRoot`, or to nothing. */
function leadsOut(path: string, realRoot: string): boolean {
  if (!lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) return false;
  try {
    return insideRelative(realRoot, realpathSync(path)) === undefined;
  } catch {
    return true;
  }
}

/** What the edit did to the project's trust, which covers the file it changed. */
function tellTrust(io: Io, { before, after, renewed }: TrustedEdit): void {
  const trustCommand = `  ${hermesCommand()} extensions trust${cwdFlag(after.root)}`;
  if (renewed) {
    io.out(
      before.state === 'trusted'
        ? `It takes effect on the next session. The project's trust covers this file; the project was trusted and this edit is the only change, so its trust was renewed.`
        : `It takes effect on the next session. The project had no code or config of its own, so it is now trusted with just this file (a file it adds later is not).`,
    );
    return;
  }
  if (before.trusted) {
    io.out(
      `The project's trust covers this file, and not only this edit changed since it was trusted, so the project ${after.root} is not trusted as it is now (${whyUntrusted(after)}): the config and extensions trusted before stay in force, and the changes, this edit too, do nothing until you review them and trust it again:`,
    );
  } else if (before.state === 'changed') {
    io.out(
      `The project ${after.root} ${untrustedStanding(before)}: the config and extensions trusted then stay in force, and this edit does nothing until you review the changes and trust it again:`,
    );
  } else {
    io.out(
      `The project ${after.root} ${untrustedStanding(before)}, so its config — this edit too — is ignored until you review it and trust it:`,
    );
  }
  io.out(trustCommand);
}
