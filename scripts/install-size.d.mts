// The types of install-size.mjs, for test/packaging/install-size.test.ts.

/** The limit of a default install: 25 MB. */
export declare const INSTALL_SIZE_LIMIT: number;

export interface InstallSize {
  /** Bytes under node_modules, as `du -s --apparent-size` counts them. */
  total: number;
  /** Each top-level package with what it brings (its nested node_modules too), largest first. */
  packages: Array<{ name: string; bytes: number }>;
}

export declare function measureNodeModules(nodeModules: string): InstallSize;
export declare function megabytes(bytes: number): string;
export declare function describeSize(size: InstallSize, count?: number): string;
