/** Words that ask for a change to the code. */
const IMPLEMENTATION =
  /\b(implement|fix|add|build|change|refactor|write|create|update|modify|remove|delete|rename|migrate|rewrite|edit|patch|introduce|replace|convert|port|upgrade|optimi[sz]e|improve|make|code)\b/i;
/** How a question starts. */
const QUESTION_START =
  /^(what|why|how|where|when|who|which|whose|is|are|was|were|does|do|did|should|explain|describe)\b/i;
/** How a request dressed as a question starts: still a request. */
const POLITE_REQUEST = /^(please|(can|could|would|will) you|i (want|need) you to|let'?s)\b/i;

export function isSlashCommand(message: string): boolean {
  return message.trimStart().startsWith('/');
}

export function isQuestion(message: string): boolean {
  const text = message.trim();
  if (POLITE_REQUEST.test(text)) return false;
  return text.endsWith('?') || QUESTION_START.test(text);
}

/** A message that asks for code to be changed: not a slash command, not a question. */
export function isImplementationRequest(message: string): boolean {
  return !isSlashCommand(message) && !isQuestion(message) && IMPLEMENTATION.test(message);
}
