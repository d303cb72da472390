// The parts of autocannon 9 the bench uses; the package ships no types.
declare module 'autocannon' {
  function autocannon(options: autocannon.Options & { skipAggregateResult: true }): Promise<autocannon.RawResult>;
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  namespace autocannon {
    /** Merges raw results of runs made with `skipAggregateResult`, latency histograms included. */
    function aggregateResult(results: RawResult[], options: Pick<Options, 'url' | 'connections'>): Result;
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      /** `context` is the connection's own, kept across its requests, so one request can use what an earlier one answered. */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      headers?: Record<string, string>;
      requests?: Request[];
      /** Resolve to a RawResult, whose histograms can be merged with others by aggregateResult. */
      skipAggregateResult?: boolean;
    }
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
    }
    interface Result {
      requests: Histogram & { total: number };
      latency: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
    }
    /** One run's counts before aggregation; the histograms are encoded, for aggregateResult alone. */
    interface RawResult {
      totalCompletedRequests: number;
      /** Seconds. */
      duration: number;
      errors: number;
      non2xx: number;
      latencies: unknown;
    }
  }
  export = autocannon;
}
