import { useAttackHomes } from '../../test/support/sandbox-attack.js';
import { sandboxAttacks } from '../../test/support/sandbox-attacks/index.js';

/**
 * Attempts, as the model the guard constrains (no plan, default config), to change src/ or to run
 * code outside the OS sandbox in one or a few tool calls (extensions/workflow-guard/README.md, The
 * sandbox; Threat model). Each call is decided by the guard and then run for real with bash, as the
 * agent would run it; every test ends by checking src/ byte for byte. The attacks are in
 * test/support/sandbox-attacks/, shared with sandbox-attacks-network.test.ts.
 */
useAttackHomes();
sandboxAttacks();
