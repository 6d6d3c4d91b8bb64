import { describe, expect, it } from 'vitest';
import { recordOf } from '../../src/trust/records.js';
import { changesSinceTrust } from '../../src/trust/trust-diff.js';
import { tree } from '../support/fixtures.js';

const record = (path: string, text: string) => recordOf(path, Buffer.from(text));

describe('changesSinceTrust', () => {
  it('shows only the bytes that trusting records: a file changed since its review throws', async () => {
    const root = tree({ 'a.ts': 'swapped in after the review\n' });
    await expect(
      changesSinceTrust(tree(), root, [], [record('a.ts', 'what was reviewed\n')]),
    ).rejects.toThrow(/a\.ts changed while it was being reviewed/);
  });

  it('says so when no copy of the trusted version was kept, rather than diff against nothing', async () => {
    const root = tree({ 'a.ts': 'new\n' });
    const [change] = await changesSinceTrust(
      tree(),
      root,
      [record('a.ts', 'old\n')],
      [record('a.ts', 'new\n')],
    );
    expect(change).toEqual({
      path: 'a.ts',
      kind: 'changed',
      noDiff: expect.stringMatching(/^no copy of the trusted version was kept/),
    });
  });
});
