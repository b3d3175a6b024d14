import { randomBytes, randomUUID } from "node:crypto";
import type { Clock, IdGenerator, RandomSource } from "../core/ports.js";

/** The time every function decides by, outside tests that pass a clock of their own. */
export const systemClock: Clock = { now: () => Date.now() };

/** Ids of what Beacon creates: operations, events, deliveries, bundles. */
export const randomIds: IdGenerator = { newId: () => randomUUID() };

/** Secrets Beacon hands out. */
export const randomSource: RandomSource = { bytes: (count) => randomBytes(count) };
