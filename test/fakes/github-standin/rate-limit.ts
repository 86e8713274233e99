/**
 * GitHub's primary rate limit, as its REST API reports it on every authenticated answer
 * ("Checking the status of your rate limit", docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api):
 * `x-ratelimit-limit`, `-remaining`, `-used`, `-reset` (epoch seconds) and `-resource`.
 * An installation gets at least 5,000 requests an hour; every route served here is in the
 * `core` resource. Past the limit GitHub answers 403 with `x-ratelimit-remaining: 0` and a
 * message that says so. Counted per credential (GitHub counts per installation, and each
 * job here uses one token of its own installation).
 */
export const HOURLY_LIMIT = 5000;
const HOUR_MS = 3_600_000;

export type RateLimitAnswer = { headers: Record<string, string>; exceeded: boolean };

export class RateLimits {
  private readonly windows = new Map<string, { used: number; resetAt: number }>();

  constructor(
    private readonly limit = HOURLY_LIMIT,
    private readonly now: () => number = Date.now,
  ) {}

  /** One request by `caller`: the headers of its answer, and whether it is over the limit. */
  take(caller: string): RateLimitAnswer {
    const now = this.now();
    let window = this.windows.get(caller);
    if (window === undefined || window.resetAt <= now) {
      window = { used: 0, resetAt: now + HOUR_MS };
      this.windows.set(caller, window);
    }
    const exceeded = window.used >= this.limit;
    if (!exceeded) window.used++;
    return {
      exceeded,
      headers: {
        'x-ratelimit-limit': String(this.limit),
        'x-ratelimit-remaining': String(this.limit - window.used),
        'x-ratelimit-used': String(window.used),
        'x-ratelimit-reset': String(Math.ceil(window.resetAt / 1000)),
        'x-ratelimit-resource': 'core',
      },
    };
  }
}
