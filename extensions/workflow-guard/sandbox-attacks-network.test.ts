import { useDaemonNetworkFilter } from '../../test/support/sandbox-attack.js';

/**
 * The attacks on the sandbox (sandbox-attacks.test.ts) again, with a domain allowed: each line is
 * the one a hook daemon's runtime makes, bubblewrap pointed at the daemon's network filter
 * (docs/policy.md, What runs where), so every attack there must fail against it too.
 */
useDaemonNetworkFilter(['localhost']);
await import('./sandbox-attacks.test.js');
