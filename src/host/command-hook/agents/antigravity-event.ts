type HookEvent = Record<string, unknown>;

/**
 * An Antigravity hook event in the engine's form (agent.ts). Antigravity sends its events as
 * protobuf JSON in camelCase — `conversationId`, `stepIdx`, `toolCall: {name, args}` (arguments
 * in PascalCase: `CommandLine`, `Cwd`, `TargetFile`…), `workspacePaths`, `modelName` — and no
 * event name: the hook is installed for `PreToolUse` alone (agents/antigravity.ts), so an event is
 * a tool call. The conversation is the session; the step is the call's id (one step, one call),
 * the call's own `Cwd`, else the first workspace folder, its folder. An event that names itself
 * (`hook_event_name`, should a version send one) keeps that name. One that cannot be read is an
 * error: the engine refuses it.
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
  const own = (input as HookEvent).Cwd;
  const cwd = typeof own === 'string' && own !== '' ? own : roots[0];
  const step = event.stepIdx;
  return {
    hook_event_name:
      typeof event.hook_event_name === 'string' ? event.hook_event_name : 'PreToolUse',
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
