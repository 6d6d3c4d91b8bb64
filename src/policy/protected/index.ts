export {
  type ProtectedGround,
  type ProtectedHit,
  type ProtectedPlace,
  protectedGround,
  protectedHit,
} from './ground.js';
export { protectedHermesCommand } from './hermes-commands.js';
export { type GroundRefusal, judgeGround } from './judge.js';
export { groundKindOf } from './kinds.js';
export { mentionedGround } from './mentions.js';
