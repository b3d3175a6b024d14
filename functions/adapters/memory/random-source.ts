import type { RandomSource } from "../../core/ports.js";

/** Bytes that differ from call to call, without being random: tests can tell one secret from another. */
export class CountingRandom implements RandomSource {
  private calls = 0;
  bytes(count: number) {
    this.calls++;
    return Uint8Array.from({ length: count }, (_, index) => (this.calls * 31 + index) % 256);
  }
}
