import { createHash } from "node:crypto";

/**
 * Distinct agents, counted idempotently: a HyperLogLog sketch of 1,024 registers. Adding an agent twice, or
 * merging a sketch into one that holds it already, changes nothing, so a redelivered heartbeat cannot count
 * its agent again; sketches of several minutes merge into the distinct agents of all of them. Up to about
 * 2,500 agents it counts by linear counting (exact for a class of a dozen, a standard error of 1 % at 500 and
 * 3 % at 2,000); beyond, its standard error is 3.25 %.
 */
const INDEX_BITS = 10;
export const SKETCH_REGISTERS = 1 << INDEX_BITS;
const ALPHA = 0.7213 / (1 + 1.079 / SKETCH_REGISTERS);

export type AgentSketch = Uint8Array;

export const emptySketch = (): AgentSketch => new Uint8Array(SKETCH_REGISTERS);

/** The register an agent id falls in, and the rank (1 + leading zeros) of the rest of its 64-bit hash. */
function registerOf(agentId: string): { index: number; rank: number } {
  const hash = createHash("sha256").update(agentId).digest();
  const high = hash.readUInt32BE(0);
  const low = hash.readUInt32BE(4);
  const rest = high & ((1 << (32 - INDEX_BITS)) - 1);
  const rank =
    rest !== 0
      ? Math.clz32(rest) - INDEX_BITS + 1
      : low !== 0
        ? 32 - INDEX_BITS + Math.clz32(low) + 1
        : 64 - INDEX_BITS + 1;
  return { index: high >>> (32 - INDEX_BITS), rank };
}

export function addAgent(sketch: AgentSketch, agentId: string): void {
  const { index, rank } = registerOf(agentId);
  if (rank > (sketch[index] ?? 0)) sketch[index] = rank;
}

/** Merges `other` into `sketch`: the union of the agents both saw. */
export function mergeSketch(sketch: AgentSketch, other: AgentSketch): void {
  for (let index = 0; index < SKETCH_REGISTERS; index++) {
    const rank = other[index] ?? 0;
    if (rank > (sketch[index] ?? 0)) sketch[index] = rank;
  }
}

export function estimateAgents(sketch: AgentSketch): number {
  let inverseSum = 0;
  let zeros = 0;
  for (const rank of sketch) {
    inverseSum += 2 ** -rank;
    if (rank === 0) zeros++;
  }
  const raw = (ALPHA * SKETCH_REGISTERS * SKETCH_REGISTERS) / inverseSum;
  const estimate =
    raw <= 2.5 * SKETCH_REGISTERS && zeros > 0 ? SKETCH_REGISTERS * Math.log(SKETCH_REGISTERS / zeros) : raw;
  return Math.round(estimate);
}

/**
 * Stored small while few registers are set (two bytes per set register: its index and rank), whole once half
 * of them are: a class of a dozen agents costs 24 bytes a minute, a large one 1 KB.
 */
export function sketchToBytes(sketch: AgentSketch): Uint8Array {
  const set: number[] = [];
  sketch.forEach((rank, index) => {
    if (rank > 0) set.push(index);
  });
  if (set.length * 2 >= SKETCH_REGISTERS) return Uint8Array.from(sketch);
  const bytes = new Uint8Array(set.length * 2);
  set.forEach((index, position) => {
    const word = (index << 6) | (sketch[index] ?? 0);
    bytes[position * 2] = word >>> 8;
    bytes[position * 2 + 1] = word & 0xff;
  });
  return bytes;
}

export function sketchFromBytes(bytes: Uint8Array | undefined): AgentSketch {
  if (bytes === undefined) return emptySketch();
  if (bytes.length === SKETCH_REGISTERS) return Uint8Array.from(bytes);
  const sketch = emptySketch();
  for (let position = 0; position + 1 < bytes.length; position += 2) {
    const word = ((bytes[position] ?? 0) << 8) | (bytes[position + 1] ?? 0);
    sketch[word >>> 6] = word & 0x3f;
  }
  return sketch;
}
