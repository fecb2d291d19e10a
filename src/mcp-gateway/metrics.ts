// /metrics for tool calls: a count by server, tool and outcome, and a latency histogram by server.
// The metrics registry is another feature's, so the composition root hands it in and this file only
// describes the series; each label set is resolved once and kept.
import type { CallOutcome } from './gateway.ts';

interface Series {
  inc(): void;
}
interface Observer {
  observe(v: number): void;
}

/** The registry's shape as far as these series need it. */
export interface MetricsLike {
  tally<L extends string>(spec: {
    name: string;
    help: string;
    labelNames: readonly L[];
  }): {
    series(labels: Record<L, string>): Series;
  };
  histogram<L extends string>(spec: {
    name: string;
    help: string;
    labelNames: readonly L[];
    buckets: readonly number[];
  }): {
    series(labels: Record<L, string>): Observer;
  };
}

export function mcpGatewayMetrics(metrics: MetricsLike) {
  const calls = metrics.tally<'server' | 'tool' | 'outcome'>({
    name: 'switchyard_mcp_tool_calls_total',
    help: 'Tool calls through /mcp/v1, by server, tool and outcome (ok, tool_error, error, unavailable, refused)',
    labelNames: ['server', 'tool', 'outcome'],
  });
  const seconds = metrics.histogram<'server'>({
    name: 'switchyard_mcp_tool_call_seconds',
    help: 'Tool call latency through /mcp/v1, by server',
    labelNames: ['server'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  });
  const callSeries = new Map<string, Series>();
  const latency = new Map<string, Observer>();
  return {
    count(server: string, tool: string, outcome: CallOutcome, secs: number): void {
      const key = `${server}\u0000${tool}\u0000${outcome}`;
      let s = callSeries.get(key);
      if (!s) {
        s = calls.series({ server, tool, outcome });
        callSeries.set(key, s);
      }
      s.inc();
      let h = latency.get(server);
      if (!h) {
        h = seconds.series({ server });
        latency.set(server, h);
      }
      h.observe(secs);
    },
  };
}
