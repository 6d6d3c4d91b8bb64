import { defineConfig } from 'hermes-extensions';

/**
 * This repository's own project config, in the shape every Hermes project uses. The extensions
 * shipped in `extensions/` are configured here once they are loaded from disk.
 */
export default defineConfig({
  extensions: {},
});
