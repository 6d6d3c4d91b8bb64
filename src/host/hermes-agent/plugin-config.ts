import { isMap, isSeq, parseDocument } from 'yaml';
import { type Edited, editYamlList } from '../../config/yaml-list.js';

/** The Hermes agent's plugin lists in its config.yaml: `plugins.enabled`, `plugins.disabled`. */
export type PluginList = 'enabled' | 'disabled';

/**
 * Adds `name` to (or removes it from) `plugins.<list>` of the Hermes agent's config.yaml text,
 * changing only that list's lines (editYamlList, as `hermes extensions enable` edits ours). A
 * text that does not parse, or a `plugins` or list that is not what Hermes reads there (a
 * mapping, a list of names), is an error naming `file` and what to fix: such a file is the
 * user's to repair, not this installer's to overwrite.
 */
export function editPluginList(
  text: string,
  file: string,
  list: PluginList,
  name: string,
  add: boolean,
): Edited {
  const document = parseDocument(text);
  const problem = document.errors[0];
  if (problem) throw new Error(`${file} is not valid YAML (${problem.message}); fix it first`);
  const plugins = document.get('plugins', true);
  if (plugins != null && !isMap(plugins)) {
    throw new Error(
      `plugins in ${file} is not a mapping; the Hermes agent reads plugins.${list} there`,
    );
  }
  const current = document.getIn(['plugins', list], true);
  if (current != null && !isSeq(current)) {
    throw new Error(`plugins.${list} in ${file} is not a list of plugin names; make it one`);
  }
  return editYamlList(text, ['plugins', list], name, add);
}
