import { isAbsolute } from 'node:path';

/**
 * The paths no sandboxed command of a runtime may read (docs/policy.md, The OS sandbox): what
 * extensions give with `hermes.denySandboxRead`, asked each time a sandbox is made for a tool
 * call (the files on the disk then), by the protected-ground rule and by an extension that makes
 * its own sandbox (`hermes.sandboxDenyRead()`). One per runtime, so two projects served by one
 * process never share one.
 */
export class SandboxDenyRead {
  readonly #sources: { extension: string; paths: () => readonly string[] }[] = [];

  add(extension: string, paths: () => readonly string[]): void {
    this.#sources.push({ extension, paths });
  }

  /**
   * Every path, once each, in the order given. Throws, naming the extension, when one fails or
   * gives anything but absolute paths: a sandbox that cannot know what to hide is not made (the
   * call it was for is refused).
   */
  paths(): string[] {
    const all = new Set<string>();
    for (const { extension, paths } of this.#sources) {
      let given: readonly unknown[];
      try {
        given = paths();
      } catch (error) {
        throw new Error(
          `${extension} could not say which files sandboxed commands may not read: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (!Array.isArray(given)) {
        throw new TypeError(`${extension}: hermes.denySandboxRead's function must return an array`);
      }
      for (const path of given) {
        if (typeof path !== 'string' || !isAbsolute(path) || path.includes('\0')) {
          throw new TypeError(
            `${extension}: hermes.denySandboxRead gave ${JSON.stringify(path)}, not an absolute path`,
          );
        }
        all.add(path);
      }
    }
    return [...all];
  }
}
