import { type Answer, bin, runBin, runProcess } from '../support/run-bin.js';

/**
 * The real bin in a child process, with its own $HERMES_HOME (and $HOME, so the user's own agent
 * settings stay out of doctor's checks) and no TTY; `env` on top.
 */
export function hermes(home: string, ...args: string[]): Promise<Answer> {
  return hermesWith({}, home, ...args);
}

export function hermesWith(
  env: Record<string, string | undefined>,
  home: string,
  ...args: string[]
): Promise<Answer> {
  return runBin(args, {
    HERMES_HOME: home,
    HOME: home,
    CODEX_HOME: '',
    HERMES_TRUST_PROJECT: '',
    ...env,
  });
}

/** The bin on a terminal `columns` wide (through `script`), colours off. */
export function hermesOnTerminal(home: string, columns: number, args: string): Promise<Answer> {
  return runProcess(
    'script',
    ['-qec', `stty cols ${columns}; "${process.execPath}" "${bin}" ${args}`, '/dev/null'],
    { env: { HERMES_HOME: home, HOME: home, NO_COLOR: '1', HERMES_TRUST_PROJECT: '' } },
  );
}
