// Preloaded (`node --import`) by the tests of the managed layer: points this process at a managed
// folder in a temporary one (src/policy/protected/managed-location.ts, TEST_LOCATION). A real
// install never preloads it, and the installed hook command unsets NODE_OPTIONS.
const dir = process.env.HERMES_TEST_MANAGED_SEAM;
if (dir) globalThis[Symbol.for('hermes-extensions.managed-location.test')] = dir;
