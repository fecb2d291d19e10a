// Command-line options of `npm run bench -- [options]`. Pure.
export interface BenchOptions {
  /** Seconds per measured run (one target, one measure). */
  durationSec: number;
  /** Seconds of unrecorded c=32 load before each target's first run of a scenario. */
  warmupSec: number;
  soakSec: number;
  peer: 'portkey' | null;
  /** Run the bare floor proxy (issue 32) as a target beside direct and the gateway. */
  floor: boolean;
  loadgen: 'auto' | 'wrk' | 'autocannon';
  /** Scenario ids to run (all when empty). */
  only: string[];
  /** Profile the gateway under pass-through load instead of running the table. */
  profile: boolean;
  /** With --profile: an org budget and rate limits on the bench key (bench/feature-load.ts). */
  limits: boolean;
  /** With --profile: an org guardrail policy that scans every streamed delta (bench/feature-load.ts). */
  guardrails: boolean;
  /** With --profile: ms the fake waits between stream records (`pace-<ms>`), 0 for none. */
  paceMs: number;
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [--quick] [--peer portkey] [--no-floor] [--duration <s>] [--warmup <s>] [--soak <s>]
                        [--loadgen auto|wrk|autocannon] [--only <id,id>] [--profile [--limits] [--guardrails] [--pace <ms>]]
  --quick     2 s runs, 1 s warm-ups, 10 s soak (about two minutes in all)
  --peer      also run scenarios 1-2 through a peer gateway (portkey: installed into bench/peers/portkey)
  --no-floor  leave out the bare node:http + undici proxy (bench/floor-proxy.ts) the gateway is compared with
  --profile   run pass-through load against a gateway started with node --cpu-prof and print its hottest functions
  --limits    with --profile: an org budget and rate limits on the bench key, none of which refuses
  --guardrails with --profile: an org guardrail policy (output pii mask, one input check) that never matches
  --pace      with --profile: the fake waits this many ms between stream records (each delta its own read)`;

export function parseArgs(argv: string[]): BenchOptions {
  const o: BenchOptions = {
    durationSec: 5,
    warmupSec: 2,
    soakSec: 60,
    peer: null,
    floor: true,
    loadgen: 'auto',
    only: [],
    profile: false,
    limits: false,
    guardrails: false,
    paceMs: 0,
    help: false,
  };
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
    return v;
  };
  const seconds = (v: string, flag: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} must be a positive number of seconds, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--quick':
        o.durationSec = 2;
        o.warmupSec = 1;
        o.soakSec = 10;
        break;
      case '--duration':
        o.durationSec = seconds(value(i++, a), a);
        break;
      case '--warmup':
        o.warmupSec = seconds(value(i++, a), a);
        break;
      case '--soak':
        o.soakSec = seconds(value(i++, a), a);
        break;
      case '--peer': {
        const v = value(i++, a);
        if (v !== 'portkey') throw new Error(`unknown peer "${v}" (supported: portkey)`);
        o.peer = v;
        break;
      }
      case '--no-floor':
        o.floor = false;
        break;
      case '--loadgen': {
        const v = value(i++, a);
        if (v !== 'auto' && v !== 'wrk' && v !== 'autocannon') throw new Error(`unknown load generator "${v}"`);
        o.loadgen = v;
        break;
      }
      case '--only':
        o.only = value(i++, a)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--profile':
        o.profile = true;
        break;
      case '--limits':
        o.limits = true;
        break;
      case '--guardrails':
        o.guardrails = true;
        break;
      case '--pace':
        o.paceMs = seconds(value(i++, a), a);
        break;
      case '--help':
      case '-h':
        o.help = true;
        break;
      default:
        throw new Error(`unknown option "${a}"\n${USAGE}`);
    }
  }
  return o;
}
