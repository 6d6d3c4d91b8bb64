import { defineConfig } from 'hermes-extensions';

/**
 * The project config of this repository, for people working on it: it loads every extension
 * shipped in `extensions/` (each folder with an `index.ts`), so running an agent here runs them.
 * It is project code, so it applies once the checkout is trusted (`trustProject`).
 */
export default defineConfig({
  extensions: {
    paths: ['./extensions'],
  },
});
