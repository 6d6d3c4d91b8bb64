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
    projects: [
      {
        extends: true,
        test: { name: 'all', include: ['test/**/*.test.ts', 'extensions/**/*.test.ts'] },
      },
      {
        // The AI SDK adapter again, against AI SDK 7 (`ai-v7`, an alias of ai@7): the SDK's
        // loop, its middleware and its mock models are v7's; the adapter is the same code.
        extends: true,
        resolve: {
          alias: [
            { find: /^ai\/test$/, replacement: 'ai-v7/test' },
            { find: /^ai$/, replacement: 'ai-v7' },
          ],
        },
        test: { name: 'ai-sdk-v7', include: ['test/ai-sdk.test.ts'], env: { AI_SDK_MAJOR: '7' } },
      },
    ],
  },
});
