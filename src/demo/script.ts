import type { ToolCall } from '../hooks/messages.js';
import type { ModelResponse } from '../host/types.js';

export const PLAN_PATH = 'plans/active/plan.md';

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: args,
});

const broken = 'return users.find((user) => user.email === email);';
const fixed = 'return users.find((user) => user.email.toLowerCase() === email.toLowerCase());';

/**
 * What the scripted model does in the demo: the session an unguarded agent would rush through.
 * It searches the whole tree, edits before planning, then — told what to do by the guards —
 * reads the module map, writes the plan, and makes the fix.
 */
export const SESSION: readonly ModelResponse[] = [
  { content: 'Let me find the login code.', toolCalls: [call('c1', 'grep', { pattern: 'email' })] },
  {
    content: 'I will read the module map first.',
    toolCalls: [call('c2', 'read', { path: 'docs/MODULES.md' })],
  },
  {
    content: 'Searching again.',
    toolCalls: [call('c3', 'grep', { pattern: 'email ===' })],
  },
  {
    content: 'Found it: the comparison is case-sensitive. Fixing.',
    toolCalls: [
      call('c4', 'edit', { path: 'src/auth/login.ts', old_string: broken, new_string: fixed }),
    ],
  },
  {
    content: 'Writing the plan first.',
    toolCalls: [
      call('c5', 'write', {
        path: PLAN_PATH,
        content:
          '# Fix: login fails for emails typed with capitals\n\n1. Compare emails case-insensitively in src/auth/login.ts (findUser).\n2. Test: a user stored as ada@example.com logs in as Ada@Example.com.\n',
      }),
    ],
  },
  {
    content: 'Plan written. Now the fix.',
    toolCalls: [
      call('c6', 'edit', { path: 'src/auth/login.ts', old_string: broken, new_string: fixed }),
    ],
  },
  { content: 'Fixed: findUser now compares emails case-insensitively, as the plan says.' },
];
