import { hermesCommand } from '../../../command-name.js';
import { type PauseFlag, pauseWords, readPause } from '../../../config/pause.js';
import { hermesHomeOf } from '../../../policy/protected/ground.js';
import type { Check } from './check.js';

/** The pause in force, as the runtimes find it (src/runtime/pause-switch.ts); none when not paused. */
export function pauseInForce(): PauseFlag | undefined {
  return readPause(hermesHomeOf(process.env));
}

/** The kill switch, when on: a warning first of all, since it overrides every check below. */
export function pauseChecks(): Check[] {
  const flag = pauseInForce();
  if (flag === undefined) return [];
  return [
    {
      level: 'warning',
      subject: 'kill switch',
      message: `every tool call of every agent is refused: the extensions are ${pauseWords(flag)} (flag ${flag.file})`,
      fix: `${hermesCommand()} extensions resume --all, in a terminal`,
    },
  ];
}
