/**
 * How late the load generator's own timers fire, on average over each second. When the generator is short
 * of CPU, requests leave late and response times read long whatever the service does: the runner warns then.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";

/** An Artillery histogram (ms), emitted by the processor in the generator's worker. */
export const GENERATOR_DELAY_METRIC = "beacon.generator.event_loop_delay";
/** The monitor's timer period; a timer on time fires this long after the last. */
const RESOLUTION_MS = 10;

let monitor: IntervalHistogram | undefined;
let sampledAt = 0;

/** Called on every heartbeat sent; emits the mean delay of the last second, at most once a second. */
export function sampleGeneratorDelay(emit: (metric: string, milliseconds: number) => void): void {
  const now = Date.now();
  if (!monitor) {
    monitor = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    monitor.enable();
    sampledAt = now;
    return;
  }
  if (now - sampledAt < 1000) return;
  emit(GENERATOR_DELAY_METRIC, Math.max(0, monitor.mean / 1e6 - RESOLUTION_MS));
  monitor.reset();
  sampledAt = now;
}
