// Provider conformance for family beta: the same cases.ts list, every vendor, through /beta/v1/messages.
import { betaDriver } from '../beta/conformance-driver.ts';
import { runConformance } from './runner.ts';

runConformance(betaDriver);
