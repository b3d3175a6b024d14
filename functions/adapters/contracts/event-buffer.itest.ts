import { MemoryEventBuffer } from "../memory/event-buffer.js";
import { RedisEventBuffer } from "../redis/event-buffer.js";
import { BUFFER_BOUNDS, eventBufferContract } from "./event-buffer.contract.js";
import { sharedRedis } from "./local-stack.js";

const redis = sharedRedis();

// A stream name of each case's own: the buffer is per stream, so cases never share one.
let made = 0;
eventBufferContract(
  "Redis",
  () => new RedisEventBuffer(redis.client, `contract-${process.pid}-${++made}-${Date.now()}`, BUFFER_BOUNDS),
);
eventBufferContract(
  "the memory fake",
  () => new MemoryEventBuffer(BUFFER_BOUNDS.maxEvents, BUFFER_BOUNDS.maxEventsPerTenant),
);
