import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './doc-blocks.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The README's length: read in ten minutes; the rest lives in docs/. */
const MAX_LINES = 300;

/** How far into the README a new user's question must be answered or linked. */
const ANSWERED_WITHIN = 0.4;

/**
 * A new user's questions, each with what answers it: a command or a link. Every one must be met
 * within the first ANSWERED_WITHIN of the README.
 */
const QUESTIONS: Array<[question: string, answer: RegExp]> = [
  ['how do I install it?', /npm i -D hermes-extensions/],
  ['how do I turn on a guard?', /paths: \[hermes-extensions\/workflow-guard/],
  ['how do I keep the agent out of .env?', /hermes-extensions\/secrets-guard/],
  ['how do I put it in front of Claude Code?', /hook install claude-code/],
  ['Codex, OpenCode, the Hermes agent?', /Codex, OpenCode, the Hermes agent.*\]\(#agents\)/s],
  ['how do I write my own guard?', /\]\(docs\/writing-guards\.md\)/],
  ['how do I see what was blocked?', /extensions log|\]\(docs\/observing\.md/],
  ['how do I remove it?', /extensions uninstall/],
  ['can I trust a repository I cloned?', /\]\(docs\/trust\.md\)/],
  ['what does it hold against?', /\]\(docs\/trust\.md#threat-model\)/],
];

/** The questions whose answer is missing from `text`, or first met past the share allowed. */
function lateAnswers(text: string): string[] {
  const lines = text.split('\n');
  const within = lines.slice(0, Math.ceil(lines.length * ANSWERED_WITHIN)).join('\n');
  return QUESTIONS.filter(([, answer]) => !answer.test(within)).map(([question]) => question);
}

/** The rows of the README's table of agents: the agent, and the page each links to. */
function agentRows(text: string): Array<{ agent: string; page: string | undefined }> {
  const section = /^## Agents\n([\s\S]*?)^## /m.exec(text)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| agent '))
    .map((line) => ({
      agent: line.split('|')[1]?.trim() ?? '',
      page: /\]\((docs\/[\w-]+\.md)\)\s*\|\s*$/.exec(line)?.[1],
    }));
}

describe('the README, read in ten minutes', () => {
  it(`is at most ${MAX_LINES} lines: every other section lives in docs/`, () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(MAX_LINES);
  });

  it("answers or links a new user's questions in its first 40 %", () => {
    expect(lateAnswers(readme)).toEqual([]);
  });

  it('can fail: an answer past the first 40 %, or none, is reported', () => {
    expect(lateAnswers(readme.replaceAll('extensions uninstall', 'extensions remove'))).toEqual([
      'how do I remove it?',
    ]);
    const pushedDown = `${'text\n'.repeat(readme.split('\n').length * 2)}${readme}`;
    expect(lateAnswers(pushedDown)).toEqual(QUESTIONS.map(([question]) => question));
  });

  it('has one table of agents, each row linking its page of docs/', () => {
    const rows = agentRows(readme);
    expect(rows.map((row) => row.agent)).toEqual(
      expect.arrayContaining([
        'Claude Code',
        'Codex',
        'OpenCode',
        'the Hermes agent',
        'Cursor',
        'Antigravity (`agy`)',
      ]),
    );
    expect(rows.filter((row) => row.page === undefined).map((row) => row.agent)).toEqual([]);
  });

  it('says which platforms hold the guarantee, the Hermes plugin command, the demo for an installed user', () => {
    expect(readme).toMatch(/hold on Linux and macOS\. On Windows `hermes hook\s+install` refuses/);
    expect(readme).toMatch(/`hermes-extensions hook install hermes-agent\s+--plugin`/);
    expect(readme).toMatch(/`npx hermes\s+demo`/);
  });
});
