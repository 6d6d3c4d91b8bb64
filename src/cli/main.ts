import { readFileSync } from 'node:fs';

const USAGE = `Usage: hermes [options]

The command line of hermes-extensions. Extension management commands
(\`hermes extensions list | doctor | ...\`) are not part of this version yet.

Commands:
  demo             one agent session under workflow-guard and module-router, told as a story

Options:
  -h, --help       show this help
  -v, --version    print the version
`;

/** Exit codes: 0 fine, 1 problems found, 2 bad usage. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (first === 'demo') {
    const { runDemo } = await import('../demo/run-demo.js');
    return runDemo();
  }
  if (first === '-v' || first === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  process.stderr.write(`hermes: "${argv.join(' ')}" is not a command of this version.\n\n${USAGE}`);
  return 2;
}

function version(): string {
  const manifest = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
