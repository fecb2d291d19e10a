// What the Messages wire carries of an IR request (the same shape in every vendor folder). Bedrock's
// InvokeModel takes the same body, so Claude on Bedrock shares this table.
import type { WireCapabilities } from '../shared/warnings.ts';

export const anthropicCapabilities: WireCapabilities = {
  lacks: ['seed', 'presencePenalty', 'frequencyPenalty', 'logitBias'],
  maxTemperature: 1,
  toolResultImages: true,
};
