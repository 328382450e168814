/**
 * Spaces requests to at most `perSecond` a second (--rate), for rate-limited staging. One
 * limiter per process and rate: the lanes share the one suite worker.
 */
class RateLimiter {
  private next = 0;

  constructor(private readonly intervalMs: number) {}

  async wait(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }
}

const limiters = new Map<number, RateLimiter>();

export function rateLimiter(perSecond: number | undefined): RateLimiter | undefined {
  if (!perSecond) return undefined;
  let limiter = limiters.get(perSecond);
  if (!limiter) limiters.set(perSecond, (limiter = new RateLimiter(1000 / perSecond)));
  return limiter;
}
