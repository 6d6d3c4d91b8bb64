import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import auditLog from '../../extensions/audit-log/index.js';
import moduleRouter from '../../extensions/module-router/index.js';
import otel from '../../extensions/otel/index.js';
import workflowGuard from '../../extensions/workflow-guard/index.js';
import { hermesConfigSchema } from '../../src/config/schema.js';
import { findUnknownKeys } from '../../src/config/unknown-keys.js';
import { allDocBlocks, type DocBlock, docPages, exampleName, root } from './doc-blocks.js';

const blocks = allDocBlocks();
const where = (block: DocBlock) => `${block.page}:${block.line}`;
const kind = (block: DocBlock) => /^(example|check|illustrative):/.exec(block.marker ?? '')?.[1];
const checked = (check: string) => blocks.filter((block) => block.marker === `check: ${check}`);

/** The shipped extensions by name, whose config sections a config block may hold. */
const SHIPPED = new Map(
  [workflowGuard, moduleRouter, auditLog, otel].map((extension) => [extension.name, extension]),
);

/** What is wrong with a config block, as `hermes extensions doctor` would see it. */
function configProblems(text: string): string[] {
  const config = parseYaml(text) as unknown;
  const parsed = hermesConfigSchema.safeParse(config);
  if (!parsed.success) return parsed.error.issues.map((issue) => issue.message);
  const problems: string[] = [];
  for (const [name, section] of Object.entries(parsed.data.extensions ?? {})) {
    const extension = SHIPPED.get(name);
    if (!extension?.configSchema) continue;
    const result = extension.configSchema.safeParse(section);
    if (!result.success) problems.push(...result.error.issues.map((i) => `${name}: ${i.message}`));
    for (const key of findUnknownKeys(extension.configSchema, section, [name])) {
      problems.push(`${key.path.join('.')}: no such key`);
    }
  }
  return problems;
}

describe('the code blocks of the docs', () => {
  it('finds the pages and their blocks (an empty page list or block reader fails)', () => {
    expect(docPages().length).toBeGreaterThanOrEqual(12);
    expect(blocks.filter((block) => block.page === 'README.md').length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((block) => kind(block) === 'example').length).toBeGreaterThanOrEqual(10);
  });

  it('every block says how it is checked: example, check or illustrative (CONTRIBUTING.md)', () => {
    const unmarked = blocks
      .filter((block) => kind(block) === undefined)
      .map(
        (block) =>
          `${where(block)} (${block.lang || 'no language'}): ${block.marker ?? 'no marker'}`,
      );
    expect(unmarked).toEqual([]);
    const unknownChecks = blocks
      .filter(
        (block) =>
          kind(block) === 'check' && !/^check: (typecheck|config)$/.test(block.marker ?? ''),
      )
      .map(where);
    expect(unknownChecks).toEqual([]);
  });

  it('every example is named once, and read by a test of test/readme', () => {
    const names = blocks.map(exampleName).filter((name): name is string => name !== undefined);
    expect(names.filter((name, at) => names.indexOf(name) !== at)).toEqual([]);
    const dir = join(root, 'test/readme');
    const tests = readdirSync(dir)
      .filter((file) => file.endsWith('.test.ts') && file !== 'code-blocks.test.ts')
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .join('\n');
    expect(names.filter((name) => !tests.includes(`'${name}'`))).toEqual([]);
  });

  it('each `check: config` block is a valid config, its shipped extensions sections too', () => {
    const blocksToCheck = checked('config');
    expect(blocksToCheck.length).toBeGreaterThan(0);
    const failures = blocksToCheck.flatMap((block) =>
      configProblems(block.text).map((problem) => `${where(block)}: ${problem}`),
    );
    expect(failures).toEqual([]);
  });

  it('can fail: a config with a misspelt key or a wrong value is reported', () => {
    expect(configProblems('extensions:\n  workflow-guard:\n    plan_pth: x\n')).toEqual([
      'workflow-guard.plan_pth: no such key',
    ]);
    expect(configProblems('extensions:\n  workflow-guard:\n    on_violation: maybe\n')).toEqual([
      'workflow-guard: on_violation must be "block" or "ask"',
    ]);
  });
});
