#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx's loader so that `npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
