import type { CommandHookAgent, SettingsFormatName } from '../agent.js';
import { antigravityPlugin } from './antigravity-plugin.js';
import { cursorHooksJson } from './cursor-hooks-json.js';
import type { SettingsFormat } from './format.js';
import { hermesYaml } from './hermes-yaml.js';
import { hooksJson } from './hooks-json.js';
import { opencodePlugin } from './opencode-plugin.js';

export type { SettingsFormat } from './format.js';

const FORMATS: Readonly<Record<SettingsFormatName, SettingsFormat>> = {
  'hooks-json': hooksJson,
  'hermes-yaml': hermesYaml,
  'cursor-hooks-json': cursorHooksJson,
  'antigravity-plugin': antigravityPlugin,
  'opencode-plugin': opencodePlugin,
};

/** The settings form `agent` keeps its hooks in. */
export function settingsFormat(agent: Pick<CommandHookAgent, 'settingsFormat'>): SettingsFormat {
  return FORMATS[agent.settingsFormat];
}
