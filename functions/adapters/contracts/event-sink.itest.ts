import { readWholeStream } from "../../../scripts/test-support/stream-reader.js";
import type { BeaconEvent } from "../../core/events/model.js";
import { CoalescingEventSink, KinesisEventSink } from "../kinesis/event-sink.js";
import { MemoryEventSink } from "../memory/event-sink.js";
import { eventSinkContract } from "./event-sink.contract.js";
import { streamOfItsOwn } from "./local-stack.js";

const stream = streamOfItsOwn();
const publishedOnStream = async (tenant: string) =>
  ((await readWholeStream(stream.kinesis, stream.name)) as BeaconEvent[]).filter(
    (event) => event.tenant === tenant,
  );

eventSinkContract("Kinesis", () => ({
  sink: new KinesisEventSink(stream.kinesis, stream.name),
  published: publishedOnStream,
}));
eventSinkContract("Kinesis, coalescing", () => ({
  sink: new CoalescingEventSink(stream.kinesis, stream.name),
  published: publishedOnStream,
}));
eventSinkContract("the memory fake", () => {
  const sink = new MemoryEventSink();
  return { sink, published: async (tenant) => sink.events.filter((event) => event.tenant === tenant) };
});
