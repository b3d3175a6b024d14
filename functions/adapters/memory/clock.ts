import type { Clock } from "../../core/ports.js";

export class ManualClock implements Clock {
  constructor(public time = Date.UTC(2026, 10, 21)) {}
  now() {
    return this.time;
  }
  advance(ms: number) {
    this.time += ms;
  }
}
