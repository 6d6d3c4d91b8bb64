import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources, not a build that may be stale.
    alias: [
      { find: /^hermes-extensions\/testing$/, replacement: src('testing/index.ts') },
      { find: /^hermes-extensions\/ai-sdk$/, replacement: src('host/ai-sdk/index.ts') },
      { find: /^hermes-extensions$/, replacement: src('index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'extensions/**/*.test.ts'],
  },
});
