// What the Gemini generateContent wire carries of an IR request (the same shape in every vendor
// folder). The end user has no field here either; it is the gateway's own record, so no warning.
import type { WireCapabilities } from '../shared/warnings.ts';

export const geminiCapabilities: WireCapabilities = {
  lacks: ['logitBias', 'parallelToolCalls'],
  maxTemperature: 2,
  toolResultImages: false,
};
