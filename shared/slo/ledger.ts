/**
 * The SLI ledger: which minutes were good, bad or unobserved, kept at two resolutions so it stays
 * small enough for one DynamoDB item and cheap enough to update every simulated minute:
 *
 * - minutes: the last `fastMinutes` minutes one by one (the fast burn-rate window);
 * - hours: the last `windowMinutes` in hourly buckets (the slow window and the budget window).
 *
 * Worked size: a 30-day window is 721 hourly buckets of five numbers and a 60-minute fast window
 * 60 entries of three: about 20 KB stored, far under DynamoDB's 400 KB.
 *
 * Updates are O(1) amortized: running sums are kept for the fast window and the budget window,
 * and a sample leaves them when it falls out. A minute recorded twice (a redelivered datapoint)
 * counts once; a minute older than the newest one recorded is ignored (the ledger moves forward).
 */
import * as z from 'zod';
import { medianInPlace } from '../forecast/stats.ts';

/** One minute's SLI: good when the latency reading was within sloMs. */
export interface SliSample {
  /** Epoch minute (epoch ms / 60,000, whole). */
  minute: number;
  good: boolean;
  /** Requests served in the minute (0 when unknown). */
  requests: number;
}

export interface WindowCounts {
  /** Minutes with an SLI reading. */
  observed: number;
  bad: number;
  requests: number;
  badRequests: number;
}

/** [epoch minute, good 1 / bad 0, requests] and [epoch hour, observed, bad, requests, bad requests]. */
export const SliLedgerJsonSchema = z
  .object({
    /** The newest epoch minute recorded; null when nothing has been. */
    newest: z.number().int().nullable(),
    minutes: z.array(z.tuple([z.number().int(), z.union([z.literal(0), z.literal(1)]), z.number().min(0)])),
    hours: z.array(
      z.tuple([
        z.number().int(),
        z.number().int().min(0),
        z.number().int().min(0),
        z.number().min(0),
        z.number().min(0),
      ]),
    ),
  })
  .strict();
export type SliLedgerJson = z.infer<typeof SliLedgerJsonSchema>;

const empty = (): WindowCounts => ({ observed: 0, bad: 0, requests: 0, badRequests: 0 });

/** One minute in (sign 1) or out (-1) of a window's counts: no object built per minute. */
function count(to: WindowCounts, s: SliSample, sign: 1 | -1): void {
  to.observed += sign;
  if (!s.good) {
    to.bad += sign;
    to.badRequests += sign * s.requests;
  }
  to.requests += sign * s.requests;
}

function add(to: WindowCounts, from: WindowCounts, sign: 1 | -1): void {
  to.observed += sign * from.observed;
  to.bad += sign * from.bad;
  to.requests += sign * from.requests;
  to.badRequests += sign * from.badRequests;
}

type Hour = WindowCounts & { hour: number };

export class SliLedger {
  readonly fastMinutes: number;
  readonly windowMinutes: number;
  readonly #minutes: SliSample[] = [];
  #minutesHead = 0;
  readonly #hours: Hour[] = [];
  #hoursHead = 0;
  readonly #fast = empty();
  readonly #window = empty();
  #newest = Number.NEGATIVE_INFINITY;
  #scratch = new Float64Array(64);

  constructor(fastMinutes: number, windowMinutes: number) {
    this.fastMinutes = fastMinutes;
    this.windowMinutes = windowMinutes;
  }

  /** The newest minute recorded (-Infinity when empty). */
  get newest(): number {
    return this.#newest;
  }

  /** Records one minute; returns false when it was not newer than the newest recorded. */
  record(s: SliSample): boolean {
    if (!(s.minute > this.#newest)) return false;
    this.#newest = s.minute;
    this.#minutes.push(s);
    count(this.#fast, s, 1);
    const hour = Math.floor(s.minute / 60);
    const last = this.#hours[this.#hours.length - 1];
    if (last && last.hour === hour && this.#hours.length > this.#hoursHead) count(last, s, 1);
    else {
      const h: Hour = { hour, ...empty() };
      count(h, s, 1);
      this.#hours.push(h);
    }
    count(this.#window, s, 1);
    this.#evict(s.minute);
    return true;
  }

  /** Drops what has left the windows as of `minute` (call before reading at a later time). */
  advanceTo(minute: number): void {
    this.#evict(minute);
  }

  #evict(now: number): void {
    while (
      this.#minutesHead < this.#minutes.length &&
      this.#minutes[this.#minutesHead]!.minute <= now - this.fastMinutes
    ) {
      count(this.#fast, this.#minutes[this.#minutesHead++]!, -1);
    }
    const firstHour = Math.floor((now - this.windowMinutes + 1) / 60);
    while (this.#hoursHead < this.#hours.length && this.#hours[this.#hoursHead]!.hour < firstHour) {
      add(this.#window, this.#hours[this.#hoursHead++]!, -1);
    }
    // Compact the arrays now and then, so a year-long run does not keep every minute.
    if (this.#minutesHead > 4096) {
      this.#minutes.splice(0, this.#minutesHead);
      this.#minutesHead = 0;
    }
    if (this.#hoursHead > 4096) {
      this.#hours.splice(0, this.#hoursHead);
      this.#hoursHead = 0;
    }
  }

  /**
   * The fast window: the last fastMinutes minutes, one by one. The counts as kept, not a copy
   * (read every simulated minute): read them now, the next record changes them.
   */
  fast(): Readonly<WindowCounts> {
    return this.#fast;
  }

  /**
   * The median of the requests of the fast window's minutes, null with none (the burst floor's
   * level: shared/slo/burst-floor.ts). Into a kept buffer: the backtest reads it every simulated
   * minute a floor stands.
   */
  fastLevel(): number | null {
    const n = this.#minutes.length - this.#minutesHead;
    if (n === 0) return null;
    if (this.#scratch.length < n) this.#scratch = new Float64Array(Math.max(n, 2 * this.#scratch.length));
    for (let i = 0; i < n; i++) this.#scratch[i] = this.#minutes[this.#minutesHead + i]!.requests;
    const level = medianInPlace(this.#scratch, n);
    return Number.isFinite(level) ? level : null;
  }

  /** The budget window: the last windowMinutes, by the hour (the oldest hour may be partial). */
  window(): WindowCounts {
    return { ...this.#window };
  }

  /** The last `minutes` (rounded up to whole hours, the current one included) from the hourly buckets. */
  recent(minutes: number, now: number): WindowCounts {
    const sum = empty();
    const from = Math.floor((now - minutes + 1) / 60);
    for (let i = this.#hours.length - 1; i >= this.#hoursHead; i--) {
      const h = this.#hours[i]!;
      if (h.hour < from) break;
      add(sum, h, 1);
    }
    return sum;
  }

  toJSON(): SliLedgerJson {
    return {
      newest: Number.isFinite(this.#newest) ? this.#newest : null,
      minutes: this.#minutes
        .slice(this.#minutesHead)
        .map((s) => [s.minute, s.good ? 1 : 0, s.requests] as [number, 0 | 1, number]),
      hours: this.#hours
        .slice(this.#hoursHead)
        .map(
          (h) =>
            [h.hour, h.observed, h.bad, h.requests, h.badRequests] as [
              number,
              number,
              number,
              number,
              number,
            ],
        ),
    };
  }

  /**
   * The ledger as stored. The hours hold every minute, so they are laid first and the minutes
   * only refill the fast window (they are already counted in their hour).
   */
  static fromJSON(json: SliLedgerJson, fastMinutes: number, windowMinutes: number): SliLedger {
    const ledger = new SliLedger(fastMinutes, windowMinutes);
    for (const [hour, observed, bad, requests, badRequests] of json.hours) {
      const h: Hour = { hour, observed, bad, requests, badRequests };
      ledger.#hours.push(h);
      add(ledger.#window, h, 1);
      ledger.#newest = Math.max(ledger.#newest, hour * 60);
    }
    for (const [minute, good, requests] of json.minutes) {
      const s = { minute, good: good === 1, requests };
      ledger.#minutes.push(s);
      add(ledger.#fast, { observed: 1, bad: good ? 0 : 1, requests, badRequests: good ? 0 : requests }, 1);
      ledger.#newest = Math.max(ledger.#newest, minute);
    }
    if (json.newest !== null) ledger.#newest = Math.max(ledger.#newest, json.newest);
    if (Number.isFinite(ledger.#newest)) ledger.#evict(ledger.#newest);
    return ledger;
  }
}
