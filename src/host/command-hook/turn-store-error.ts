/**
 * The store cannot be used (a folder that cannot be written, a corrupt file, a lock that is never
 * released, state that is not JSON data). One line that names the path or the key: a tool call is
 * refused with it, so it must say what to fix.
 */
export class TurnStoreError extends Error {
  override readonly name = 'TurnStoreError';
}
