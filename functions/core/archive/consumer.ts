import { PartlyConsumed } from "../events/consumption.js";
import type { EventConsumer, StreamRecord } from "../events/ports.js";
import { archiveObjectsOf, jsonLinesOf } from "./layout.js";
import type { ArchiveStore } from "./ports.js";

/**
 * Every event, durably, in the archive's bucket, where Athena queries it. A batch's objects are written at
 * once; when some fail, the records before the first record of the first failed object are all in objects
 * that were written, and the batch is delivered again from there.
 */
export function makeArchiveConsumer(store: ArchiveStore): EventConsumer {
  return {
    name: "archive",
    async consume(records: StreamRecord[]): Promise<void> {
      const objects = archiveObjectsOf(records);
      const outcomes = await Promise.allSettled(
        objects.map((object) => store.put(object.key, jsonLinesOf(object.events))),
      );
      let failed: { firstIndex: number; error: unknown } | undefined;
      outcomes.forEach((outcome, index) => {
        const { firstIndex } = objects[index] as { firstIndex: number };
        if (outcome.status === "rejected" && (failed === undefined || firstIndex < failed.firstIndex))
          failed = { firstIndex, error: outcome.reason };
      });
      if (failed) throw new PartlyConsumed(failed.firstIndex, { cause: failed.error });
    },
  };
}
