// One policy, every agent: no tool call may touch a secrets file — a `.env` file or an SSH key —
// whatever the agent calls the tool and however it spells the path. Written once, it holds in
// every agent this package hooks into (examples/every-agent.mjs runs it in six of them).
import { block, defineExtension } from 'hermes-extensions';

/** `.env`, `.env.local`, `id_rsa`, `id_ed25519`…, as a word of any argument (a path, a command). */
const SECRET = /(^|[\s/'"=:])(\.env(\.[\w-]+)?|id_(rsa|ecdsa|ed25519))(?=$|[\s'";|&)<>])/;

/** Every string in a tool call's arguments, however deep. */
function stringsIn(value) {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

export default defineExtension({
  name: 'no-secrets',
  version: '1.0.0',
  setup(hermes) {
    hermes.on('intercept_tool_call', (event) => {
      const found = stringsIn(event.toolArgs).find((text) => SECRET.test(text));
      if (found === undefined) return undefined;
      return block(
        `${event.toolName} would touch a secrets file (${found.trim()}); ask the user instead`,
      );
    });
  },
});
