// Provider conformance for family alpha: every case of cases.ts against every vendor on the fake upstream.
import { alphaDriver } from './alpha-driver.ts';
import { runConformance } from './runner.ts';

runConformance(alphaDriver);
