import { text } from './attributes.js';
import { modelOf, providerOf, turnOf } from './open-spans.js';
import type { EventHandlers } from './recorder.js';

/** `llm.{model}`: the turn's model work, all its requests included. */
export const llmSpans: EventHandlers = {
  pre_llm_call(p, { spans, settings }) {
    const turn = turnOf(p);
    const model = modelOf(p);
    const attributes: Record<string, string | number | boolean> = {
      'llm.model_name': model,
      'gen_ai.request.model': model,
      ...providerOf(p),
      'input.value': text(p.user_message),
    };
    if (settings.capture_conversation_history) {
      // What the model is about to see: the earlier messages, then this one.
      const history = Array.isArray(p.conversation_history) ? p.conversation_history : [];
      const conversation = [...history, { role: 'user', content: p.user_message }];
      attributes['input.value'] = JSON.stringify(conversation);
      attributes['input.mime_type'] = 'application/json';
      attributes['hermes.conversation.message_count'] = conversation.length;
    }
    if (typeof p.sender_id === 'string') {
      attributes['user.id'] = p.sender_id;
      spans.sessions.get(turn)?.setAttribute('user.id', p.sender_id);
    }
    spans.llms.set(turn, spans.start(`llm.${model}`, spans.sessions.get(turn), attributes));
  },

  post_llm_call(p, { spans }) {
    const turn = turnOf(p);
    const span = spans.llms.get(turn);
    spans.llms.delete(turn);
    span?.setAttribute('output.value', text(p.assistant_response));
    span?.end();
  },
};
