/** Budgets: at most N tool calls or model requests per turn (docs/policy.md, Budgets). */
export {
  type ModelCallBudgetEvent,
  type ModelCallBudgetOptions,
  modelCallBudget,
} from './model-call-budget.js';
export type { BudgetOwner } from './slot.js';
export {
  type ToolBudgetExceeded,
  type ToolCallBudgetEvent,
  type ToolCallBudgetOptions,
  type ToolCallBudgetResult,
  toolCallBudget,
} from './tool-call-budget.js';
export type { CountedTools } from './tools.js';
