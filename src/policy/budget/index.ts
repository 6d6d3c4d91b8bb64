/** Budgets: at most N tool calls or model requests per turn, session or window, and a limit on refusals in a row (docs/policy.md, Budgets). */

export type { BudgetScope } from './lasting.js';
export {
  type ModelCallBudgetEvent,
  type ModelCallBudgetOptions,
  modelCallBudget,
} from './model-call-budget.js';
export {
  type RefusalLimitEvent,
  type RefusalLimitOptions,
  type RefusalLimitOwner,
  refusalLimit,
} from './refusal-limit.js';
export type { BudgetOwner } from './slot.js';
export {
  type ToolBudgetExceeded,
  type ToolCallBudgetEvent,
  type ToolCallBudgetOptions,
  type ToolCallBudgetResult,
  toolCallBudget,
} from './tool-call-budget.js';
export type { CountedTools } from './tools.js';
