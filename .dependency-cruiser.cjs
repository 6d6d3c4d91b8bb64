// Import rules for src/, checked by `npm run lint` (dependency-cruiser). The framework is built in
// layers that depend one way: a folder imports only folders below it, so each layer can be read,
// tested and changed without the ones above it, and no import cycle can form between folders.
// Type-only imports count too: a type edge upwards couples the layers as much as a value edge.

/**
 * The layers, lowest first. A file may import its own layer and the layers before it in this
 * list, never one after it. Each entry says why it sits where it does.
 */
const LAYERS = [
  // Leaves any layer may use: the logger, file helpers, where the package is installed, the
  // command line's name as the user runs it (every layer's messages name its commands) and the
  // optional peers the framework loads itself (and how to install one).
  ['base', '^src/(log|fs)/|^src/(package-root|command-name|optional-peers)\\.ts$'],
  // The hook points: payloads, results, actions and folds. The chain runs what they declare,
  // so they cannot know the chain.
  ['hooks', '^src/hooks/'],
  // The one generic runner of a hook point's handlers.
  ['chain', '^src/chain/'],
  // Observer events and their plumbing: they report what the chain did.
  ['observe', '^src/observe/'],
  // Importing extension and config code (jiti, native import, the read guard). Config, trust
  // and extensions all load modules; none of them is needed to load one.
  ['modules', '^src/modules/'],
  // Finding, reading and merging configuration; it names extensions but never loads them.
  ['config', '^src/config/'],
  // Defining, discovering, loading and setting up extensions.
  ['extensions', '^src/extensions/'],
  // Extensions declared in config (a Cedar policy, a decision service): built into extensions.
  ['declared', '^src/declared/'],
  // Project trust: fingerprints the config and extensions a project would run.
  ['trust', '^src/trust/'],
  // Assembles everything above into a Runtime and its Turns.
  ['runtime', '^src/runtime/'],
  // Hosts drive a Runtime from an agent loop: the reference loop and the shared host helpers in
  // src/host/, and the adapters (src/host/<name>/, the stdio bridge among them).
  ['host', '^src/host/'],
  // `hermes-extensions/testing`: scripted models and loggers built on the hosts' types.
  ['testing', '^src/testing/'],
  // The public entry re-exports every layer; nothing inside the framework imports it by path
  // (src/modules/framework-modules.ts imports it by package name, resolved outside src/).
  ['entry', '^src/index\\.ts$'],
  // Applications of the framework, at the top: anything may be below them.
  ['apps', '^src/(cli|demo)/'],
];

const layerRules = LAYERS.slice(0, -1).map(([name, path], index) => ({
  name: `layer-${name}`,
  comment: `${name} (${path}) may not import a layer above it: ${LAYERS.slice(index + 1)
    .map(([above]) => above)
    .join(', ')} (order in .dependency-cruiser.cjs)`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(index + 1).map(([, above]) => `(${above})`) },
}));

/** One host adapter's folder: src/host/<name>/. */
const ADAPTER = '^src/(host/[^/]+)/';

// What the hook client may load besides Node: the protocol, the socket-folder check, the files
// beside a socket (a daemon marked not serving, a start under way), one request (ask.ts), a
// daemon's start (daemon-start.ts), the deadline.
const CLIENT_LEAVES =
  '^src/(host/(daemon/protocol|daemon/sha256|daemon/daemon-dir|daemon/markers|daemon/ask|daemon/unix-connection|daemon/daemon-start|hook-deadline)|policy/protected/(daemon-folder|agent-folders))\\.ts$';

module.exports = {
  forbidden: [
    {
      // A cycle, even inside one folder, means neither file can be understood, loaded or tested
      // without the other; a dynamic import() in a cycle still runs the modules in a fragile order.
      name: 'no-circular',
      comment: 'no import cycles: split out what both files need, or move it to a lower layer',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      // `hermes-extensions/policy` is its own entry for guard authors: loading it must not load
      // the runtime, and the runtime must not need it. The sandbox finds its runtime, an optional
      // peer, as the rest of the framework finds rolldown: through two leaves that import only Node.
      name: 'policy-stands-alone',
      comment:
        'src/policy/ imports nothing else of the framework but the leaves that find an optional peer',
      severity: 'error',
      from: { path: '^src/policy/' },
      // Budgets beyond a turn keep their counts with the file lock the turn store takes
      // (src/policy/budget/lasting.ts): leaves of src/fs that import only Node.
      to: {
        path: '^src/',
        pathNot:
          '^src/(policy/|(optional-peers|package-root)\\.ts$|fs/(locked-file|owned-lock|lock-unit|lock-waits|digest)\\.ts$)',
      },
    },
    {
      // The command line's doctor runs one sandboxed command (its sandbox check): it may use the
      // sandbox's own files, which load no shell parser; so may the hook daemon, which keeps the
      // sandbox's network filter (network-filter.ts names it for the lines and the daemon alike). The runtime enforces protected ground
      // (src/runtime/protected-ground.ts): it knows the ground and the tools that only read
      // without the parser, and imports the judge (which parses shell commands) when it is made.
      name: 'core-without-policy',
      comment: 'only the public entry re-exports src/policy/ (deprecated there, removed in 0.2)',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/policy/', '^src/index\\.ts$'] },
      to: {
        path: '^src/policy/',
        pathNot: [
          // A declared policy's request names the paths and the command a call names; these
          // read arguments only, and load no shell parser.
          '^src/policy/(tool-paths|argument-names|patch|shell/invocation)\\.ts$',
          '^src/policy/sandbox/(availability|quote|settings|wrap|ground-call|network-filter)\\.ts$',
          '^src/policy/protected/(ground|kinds|judge|daemon-folder|agent-folders|mcp-configs|managed-location)\\.ts$',
        ],
      },
    },
    {
      // Adapters are alternatives (an agent uses one): what two of them share goes to src/host/.
      name: 'adapters-independent',
      comment: 'a host adapter does not import another adapter; share code through src/host/*.ts',
      severity: 'error',
      from: { path: ADAPTER, pathNot: '^src/host/daemon/' },
      to: { path: ADAPTER, pathNot: '^src/$1/' },
    },
    {
      // The hook daemon is no alternative: it answers `hermes hook` with the command-hook
      // adapter's own code, kept warm. Only that adapter may it import.
      name: 'daemon-serves-command-hook',
      comment: 'src/host/daemon/ imports no adapter but src/host/command-hook/',
      severity: 'error',
      from: { path: '^src/host/daemon/' },
      to: { path: ADAPTER, pathNot: '^src/host/(daemon|command-hook)/' },
    },
    {
      // `hermes hook <agent>` loads it before the framework, on every hook call (bin/hermes.js):
      // each module it pulled in would be paid on every tool call of the agent.
      name: 'daemon-client-stands-alone',
      comment:
        'src/host/daemon/client.ts imports only Node built-ins and the leaves it shares with the daemon',
      severity: 'error',
      from: { path: '^src/host/daemon/client\\.ts$' },
      to: { pathNot: CLIENT_LEAVES, dependencyTypesNot: ['core'] },
    },
    {
      // What the client loads with it: the same holds for them.
      name: 'daemon-client-leaves-stand-alone',
      comment:
        'protocol.ts, sha256.ts, daemon-dir.ts, markers.ts, ask.ts, unix-connection.ts, daemon-start.ts, hook-deadline.ts, daemon-folder.ts and agent-folders.ts import only Node built-ins and each other',
      severity: 'error',
      from: { path: CLIENT_LEAVES },
      // Each other, and the daemon folder (placed in one file, which the protected-ground rule
      // reads too).
      to: { dependencyTypesNot: ['core'], pathNot: CLIENT_LEAVES },
    },
    {
      name: 'host-helpers-below-adapters',
      comment: 'the shared host files (src/host/*.ts) do not import an adapter',
      severity: 'error',
      from: { path: '^src/host/[^/]+$' },
      to: { path: ADAPTER },
    },
  ],
  options: {
    // Type-only imports are dependencies too (see the top of this file).
    tsPreCompilationDeps: true,
    // The build config: its empty `paths` let the package's self-imports resolve as Node resolves
    // them (to dist/), not to src/ as the type-check aliases do.
    tsConfig: { fileName: 'tsconfig.build.json' },
    doNotFollow: { path: ['node_modules', '^dist/'] },
    exclude: { path: '^dist/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default'],
    },
  },
};
