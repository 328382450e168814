import type { Output } from '../../core/output.ts';

/** How long a log may stay silent before a plain progress line says the run is still going. */
const QUIET_MS = 15_000;

/**
 * Where the run stands, for a person watching: on a terminal one live line (checks done of all,
 * the lanes working, the time), redrawn each second under the check lines; in a log (CI, a file)
 * a plain line whenever the output has been quiet for a while, the clean-up included.
 */
export class Progress {
  done = 0;
  total: number | undefined;
  private readonly lanes = new Set<string>();
  private cleanUp: (() => number) | undefined;
  private shown = false;
  private lastWrite = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private readonly started = Date.now();

  /** `live`: the terminal's stream the line is drawn on, or none; `log`: where plain lines go. */
  constructor(
    private readonly live: Output | undefined,
    private readonly log: Output,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => this.tick(), 1000).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  lane(resource: string, working: boolean): void {
    if (working) this.lanes.add(resource);
    else this.lanes.delete(resource);
  }

  /** The after-run clean-up has begun: `left` counts what it still has to put back. */
  cleaningUp(left: () => number): void {
    this.cleanUp = left;
    this.lanes.clear();
  }

  /** Output of the run's own, with the live line taken away first and drawn again after. */
  write(out: Output, text: string): void {
    this.clear();
    out.write(text);
    this.lastWrite = Date.now();
    this.draw();
  }

  text(): string {
    const seconds = `${Math.round((Date.now() - this.started) / 1000)} s`;
    if (this.cleanUp) {
      let left: number | undefined;
      try {
        left = this.cleanUp();
      } catch {
        // The journal could not be read just now: say the phase without a count.
      }
      return `clean-up: ${left === undefined ? 'putting back what the run changed' : `${left} ${left === 1 ? 'record' : 'records'} left to put back`} · ${seconds}`;
    }
    const working = this.lanes.size ? ` · ${[...this.lanes].join(', ')}` : '';
    return `${this.done}${this.total === undefined ? '' : `/${this.total}`} checks${working} · ${seconds}`;
  }

  private tick(): void {
    if (this.live) return this.draw();
    if (Date.now() - this.lastWrite < QUIET_MS) return;
    this.log.write(`… ${this.text()}\n`);
    this.lastWrite = Date.now();
  }

  private draw(): void {
    if (!this.live || !this.timer) return;
    this.live.write(`\r\x1b[K${this.text()}`);
    this.shown = true;
  }

  private clear(): void {
    if (!this.live || !this.shown) return;
    this.live.write('\r\x1b[K');
    this.shown = false;
  }
}
