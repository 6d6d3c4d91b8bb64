// The 50 small TypeScript guards the CLI and hook benchmarks install in `$HERMES_HOME/extensions/`:
// each in its own folder, slightly different, a zod `configSchema` and one `intercept_tool_call`
// handler for `write` (so every tool call of a hook benchmark passes through all of them).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const N = 50;

export function writeExtensions(home) {
  for (let i = 0; i < N; i++) {
    const name = `ext-${String(i).padStart(2, '0')}`;
    mkdirSync(join(home, 'extensions', name), { recursive: true });
    writeFileSync(
      join(home, 'extensions', name, 'index.ts'),
      `import { block, defineExtension } from 'hermes-extensions';
import { z } from 'zod';
enum Mode { Strict = 'strict', Loose = 'loose' }
interface Options { mode: Mode }
const defaults = { mode: Mode.Strict } satisfies Options;
export default defineExtension({
  name: '${name}',
  configSchema: z.object({ mode: z.enum(['strict', 'loose']).default(defaults.mode) }),
  setup(hermes) {
    hermes.on('intercept_tool_call', (event) => (event.toolArgs.path === '${name}' ? block('no') : undefined), { tools: ['write'] });
  },
});
`,
    );
  }
}
