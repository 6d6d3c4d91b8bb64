import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findProjectRoot } from '../../config/locations.js';
import { didYouMean } from '../../config/suggest.js';
import { type CommandContext, loadForCommand } from '../context.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes extensions enable|disable NAME [--project]`: edits `extensions.disabled` in
 * `$HERMES_HOME/config.yaml` (or the project's `.hermes/config.yaml`) with the yaml library's
 * document model, so comments, order and layout of the rest of the file stay as they were.
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
      `unknown extension "${name}".${hint} Known: ${known.length > 0 ? known.join(', ') : 'none'} (see hermes extensions list).`,
      2,
    );
  }
  const file = options.project
    ? join(findProjectRoot(context.cwd, context.home), '.hermes', 'config.yaml')
    : join(context.home, 'config.yaml');
  const { parseDocument, isSeq } = await import('yaml');
  let text = '';
  try {
    if (existsSync(file)) text = readFileSync(file, 'utf8');
  } catch (error) {
    // A read error does not name the file (EISDIR): this does.
    throw new CliError(`cannot read ${file}: ${(error as Error).message.split('\n')[0]}`, 2);
  }
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    throw new CliError(`cannot edit ${file}: ${document.errors[0]?.message}`, 2);
  }
  const path = ['extensions', 'disabled'];
  const current = document.getIn(path);
  const disabled: string[] = isSeq(current) ? (current.toJSON() as string[]) : [];
  const changed = enable ? disabled.includes(name) : !disabled.includes(name);
  if (enable && isSeq(current)) {
    const index = disabled.indexOf(name);
    if (index !== -1) current.delete(index);
  } else if (!enable && isSeq(current)) {
    if (!disabled.includes(name)) current.add(name);
  } else if (!enable) {
    document.setIn(path, document.createNode([name]));
  }
  if (changed) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, document.toString());
  }
  const verb = enable ? 'Enabled' : 'Disabled';
  io.out(
    changed
      ? `${verb} ${name} in ${file}. It takes effect on the next session.`
      : `${name} is ${enable ? 'not' : 'already'} in extensions.disabled of ${file}; nothing changed.`,
  );
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
