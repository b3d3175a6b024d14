import type { Notification } from "../../core/webhooks/model.js";
import type { BusRefusal, NotificationBus } from "../../core/webhooks/ports.js";

/** A bus that keeps what it takes, in order, and refuses what `refuses` says, as a bus throttling some entries. */
export class MemoryNotificationBus implements NotificationBus {
  readonly notifications: Notification[] = [];
  refuses: (notification: Notification) => boolean = () => false;

  async put(notifications: readonly Notification[]) {
    const refusals: BusRefusal[] = [];
    notifications.forEach((notification, index) => {
      if (this.refuses(notification)) refusals.push({ index, reason: "ThrottlingException" });
      else this.notifications.push(structuredClone(notification));
    });
    return refusals;
  }
}
