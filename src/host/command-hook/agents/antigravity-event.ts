type HookEvent = Record<string, unknown>;

/**
 * An Antigravity hook event in the engine's form (agent.ts). Antigravity sends its events as
 * protobuf JSON in camelCase — `conversationId`, `stepIdx`, `toolCall: {name, args}` (arguments
 * in PascalCase: `CommandLine`, `Cwd`, `TargetFile`…), `workspacePaths`, `modelName` — and no
 * event name: the hook is installed for `PreToolUse` alone (agents/antigravity.ts), so an event is
 * a tool call. The conversation is the session; the step is the call's id (one step, one call);
 * the first workspace folder is its folder. One that cannot be read is an error: the engine
 * refuses it.
 */
export function readAntigravityEvent(event: HookEvent): HookEvent | string {
  const conversation = event.conversationId;
  if (typeof conversation !== 'string' || conversation === '')
    return 'the Antigravity hook event has no conversationId';
  const call = event.toolCall;
  if (call === null || typeof call !== 'object' || Array.isArray(call))
    return 'the Antigravity hook event has no toolCall object';
  const { name, args } = call as HookEvent;
  if (typeof name !== 'string' || name === '')
    return 'the Antigravity hook event has a toolCall without a name';
  const input = args === undefined || args === null ? {} : args;
  const roots = Array.isArray(event.workspacePaths) ? event.workspacePaths : [];
  // The workspace, never the call's own `Cwd`: the event's folder decides which project's
  // extensions judge the call, and `Cwd` is the model's to choose. `Cwd` stays the shell's
  // `workdir` (agents/antigravity.ts).
  const cwd = roots[0];
  const step = event.stepIdx;
  return {
    // Only PreToolUse is installed: whatever the event says it is, it is judged as a tool call
    // (a name the engine does not know would be answered `allow` unjudged).
    hook_event_name: 'PreToolUse',
    session_id: conversation,
    tool_name: name,
    tool_input: input,
    ...(typeof step === 'number' || (typeof step === 'string' && step !== '')
      ? { tool_use_id: `step-${step}` }
      : {}),
    ...(typeof cwd === 'string' && cwd !== '' ? { cwd } : {}),
    ...(typeof event.modelName === 'string' ? { model: event.modelName } : {}),
  };
}
