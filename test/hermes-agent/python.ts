import { execFileSync } from 'node:child_process';

/** Whether python3 runs here: the plugin's tests need it, and say so when it does not. */
export const python = (() => {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('test/hermes-agent: python3 is not installed, so the plugin is not exercised');
    return false;
  }
})();
