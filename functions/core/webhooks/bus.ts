import { PartlyConsumed } from "../events/consumption.js";
import type { EventConsumer, StreamRecord } from "../events/ports.js";
import type { Notification } from "./model.js";
import { notificationOf } from "./notifications.js";
import type { BusRefusal, NotificationBus } from "./ports.js";

/**
 * Puts every notification a batch makes on the bus, for every tenant, whether or not a subscription wants it.
 * At least once: when the bus refuses some (after the bus's own retries), `onRefused` hears of them and the
 * batch is delivered again from the first record whose notification was refused, so the notifications after it
 * that were taken go on the bus again, as do all of them when another consumer fails the batch. Bus consumers
 * de-duplicate by the notification's id, its event's.
 */
export function makeNotificationBusConsumer(
  bus: NotificationBus,
  onRefused: (refusals: BusRefusal[]) => void,
): EventConsumer {
  return {
    name: "notification bus",
    async consume(records: StreamRecord[]): Promise<void> {
      const notices: Notification[] = [];
      const recordOf: number[] = [];
      records.forEach((record, index) => {
        const notice = notificationOf(record.event);
        if (notice === undefined) return;
        notices.push(notice);
        recordOf.push(index);
      });
      if (notices.length === 0) return;
      const refusals = await bus.put(notices);
      const [first] = refusals;
      if (first === undefined) return;
      onRefused(refusals);
      throw new PartlyConsumed(recordOf[first.index] as number, {
        cause: new Error(`the bus refused ${refusals.length} notification(s): ${first.reason}`),
      });
    },
  };
}
