import { useAttackHomes, useDaemonNetworkFilter } from '../../test/support/sandbox-attack.js';
import { sandboxAttacks } from '../../test/support/sandbox-attacks/index.js';

/**
 * The attacks on the sandbox (sandbox-attacks.test.ts) again, with a domain allowed: each line is
 * the one a hook daemon's runtime makes, bubblewrap pointed at the daemon's network filter
 * (docs/policy.md, What runs where), so every attack there must fail against it too.
 */
useAttackHomes();
useDaemonNetworkFilter(['localhost']);
sandboxAttacks();
