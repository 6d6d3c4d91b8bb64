import { hermesCommand } from '../../command-name.js';
import { pauseAll, pauseWords, resumeAll } from '../../config/pause.js';
import { hermesHomeOf } from '../../policy/protected/ground.js';
import { CliError, type Io } from '../io.js';

/**
 * `hermes extensions pause --all [--reason TEXT]` and `resume --all`: the kill switch
 * (docs/teams.md, Kill switch). The flag goes where every runtime looks for it — `$HERMES_HOME`
 * as protected ground places it (src/runtime/pause-switch.ts) — so what this writes is what the
 * hooks read.
 */
export async function pauseCommand(options: { all?: boolean; reason?: string }, io: Io) {
  needsAll('pause', options);
  const flag = await pauseAll(hermesHomeOf(process.env), options.reason);
  io.out(`Paused: every tool call of every agent is refused (${pauseWords(flag)}).`);
  io.out(`Lift it with: ${hermesCommand()} extensions resume --all`);
  return 0;
}

export async function resumeCommand(options: { all?: boolean }, io: Io) {
  needsAll('resume', options);
  const { lifted, still } = await resumeAll(hermesHomeOf(process.env));
  if (still !== undefined) {
    throw new CliError(
      `${lifted === undefined ? 'Your flag was not set' : 'Your pause is lifted'}, but tool calls stay refused: ${pauseWords(still)}, flag ${still.file}, which this command cannot lift; ask whoever set it.`,
      1,
    );
  }
  io.out(
    lifted === undefined
      ? 'The extensions were not paused; nothing changed.'
      : `Resumed: tool calls are judged by the extensions again (it was ${pauseWords(lifted)}).`,
  );
  return 0;
}

/** One extension is paused by `disable NAME`; these commands act on every tool call, and say so. */
function needsAll(verb: 'pause' | 'resume', options: { all?: boolean }): void {
  if (options.all) return;
  throw new CliError(
    `${verb} acts on every tool call of every agent: run \`${hermesCommand()} extensions ${verb} --all\`${verb === 'pause' ? ` (to turn one extension off, \`${hermesCommand()} extensions disable NAME\`)` : ''}.`,
    2,
  );
}
