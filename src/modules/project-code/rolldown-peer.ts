import { installPeerAdvice, optionalPeer, peerProblem } from '../../optional-peers.js';

/**
 * rolldown cannot bundle project code here: it is not installed (an optional peer dependency,
 * src/optional-peers.ts), or another version is. `problem` says which, `advice` how to install it.
 */
export class RolldownUnavailable extends Error {
  constructor(
    readonly problem: string,
    readonly advice: string,
    message = `${problem}: ${advice} (hermes-extensions bundles project code with it, to check it against what was trusted and to load it; a default install leaves it out)`,
  ) {
    super(message);
    this.name = 'RolldownUnavailable';
  }
}

/**
 * The version of rolldown that bundles project code, or a RolldownUnavailable. Only the version
 * package.json pins will do (fail closed): rewrite.ts confines the code's dynamic imports by
 * reading rolldown's syntax tree, which another version may shape otherwise, and the bundle's
 * format is that version's.
 */
export function usableRolldown(): string {
  const peer = optionalPeer('rolldown');
  const problem = peerProblem(peer);
  if (problem !== undefined || peer.installed === undefined) {
    throw new RolldownUnavailable(
      problem ?? 'rolldown is not installed',
      installPeerAdvice('rolldown'),
    );
  }
  return peer.installed;
}
