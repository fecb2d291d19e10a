// What Bedrock's Converse wire carries of an IR request (the same shape in every vendor folder).
// Claude on Bedrock speaks the Anthropic body over InvokeModel and so has Anthropic's table
// (../anthropic/capabilities.ts); Claude-only extras on Converse (top_k, thinking) are decided per model
// in encode-request.ts.
import type { WireCapabilities } from '../shared/warnings.ts';

export const converseCapabilities: WireCapabilities = {
  lacks: ['seed', 'presencePenalty', 'frequencyPenalty', 'logitBias', 'parallelToolCalls'],
  // Every Converse text model documents 0..1.
  maxTemperature: 1,
  toolResultImages: false,
};
