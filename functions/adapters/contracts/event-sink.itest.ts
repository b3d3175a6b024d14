import { readWholeStream } from "../../../scripts/test-support/stream-reader.js";
import type { BeaconEvent } from "../../core/events/model.js";
import { KinesisEventSink } from "../kinesis/event-sink.js";
import { MemoryEventSink } from "../memory/index.js";
import { eventSinkContract } from "./event-sink.contract.js";
import { streamOfItsOwn } from "./local-stack.js";

const stream = streamOfItsOwn();

eventSinkContract("Kinesis", () => ({
  sink: new KinesisEventSink(stream.kinesis, stream.name),
  published: async (tenant) =>
    ((await readWholeStream(stream.kinesis, stream.name)) as BeaconEvent[]).filter(
      (event) => event.tenant === tenant,
    ),
}));
eventSinkContract("the memory fake", () => {
  const sink = new MemoryEventSink();
  return { sink, published: async (tenant) => sink.events.filter((event) => event.tenant === tenant) };
});
