/** `beacon webhooks`: the tenant's event subscriptions and how their deliveries went (admins). */
import type { Command } from "commander";
import { dataOf, type Schemas } from "../web/src/api/client.js";
import { ExitCode } from "./exit.js";
import type { CommandKit } from "./kit.js";
import { type Cell, fields, table } from "./output.js";

/** A repeatable option's values, in the order given. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addWebhookCommands(program: Command, kit: CommandKit): void {
  const { client, show, page, paging, environment } = kit;
  const webhooks = program
    .command("webhooks")
    .description("HTTPS endpoints the tenant's events are posted to, signed (admins)");

  paging(webhooks.command("list").description("subscriptions, in the order they were made")).action(
    async (options, command: Command) => {
      const query = { limit: options.limit, cursor: options.cursor };
      const data = await dataOf(client(command).GET("/api/v1/webhooks", { params: { query } }));
      page(command, data, ({ items }) =>
        table(
          ["subscription", "url", "events", "class", "state", "created"],
          items.map((subscription) => [
            subscription.subscriptionId,
            subscription.url,
            subscription.eventTypes.join(","),
            subscription.agentClass,
            subscription.state,
            subscription.createdAt,
          ]),
        ),
      );
    },
  );

  webhooks
    .command("show <subscriptionId>")
    .description("one subscription (never its secret)")
    .action(async (subscriptionId: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).GET("/api/v1/webhooks/{subscriptionId}", { params: { path: { subscriptionId } } }),
      );
      show(command, data, (subscription) => fields(subscriptionFields(subscription)));
    });

  webhooks
    .command("create")
    .description(
      "subscribe an HTTPS endpoint to some of the tenant's events; its signing secret is shown once",
    )
    .requiredOption("--url <url>", "where deliveries are posted: a public https address")
    .requiredOption(
      "--event <type>",
      "a notification type (agent.offline) or family (operation.*); repeat for more",
      collect,
    )
    .option("--class <class>", "only this class's notifications")
    .option("--description <text>", "what it is for")
    .action(async (options, command: Command) => {
      const body = {
        url: options.url,
        eventTypes: options.event as Schemas["NotificationTypePattern"][],
        agentClass: options.class,
        description: options.description,
      };
      const created = await dataOf(client(command).POST("/api/v1/webhooks", { body }));
      show(command, created, (subscription) =>
        fields([
          ...subscriptionFields(subscription),
          ["Secret", `${subscription.secret} (shown this once: keep it now)`],
        ]),
      );
    });

  webhooks
    .command("delete <subscriptionId>")
    .description("delete a subscription: nothing more is delivered to it")
    .action(async (subscriptionId: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).DELETE("/api/v1/webhooks/{subscriptionId}", { params: { path: { subscriptionId } } }),
      );
      show(command, data, (subscription) => `Subscription ${subscription.subscriptionId} deleted`);
    });

  webhooks
    .command("enable <subscriptionId>")
    .description("make a disabled subscription active again: events from now on are delivered to it")
    .action(async (subscriptionId: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).POST("/api/v1/webhooks/{subscriptionId}/enable", {
          params: { path: { subscriptionId } },
        }),
      );
      show(command, data, (subscription) => `Subscription ${subscription.subscriptionId} enabled`);
    });

  webhooks
    .command("test <subscriptionId>")
    .description("post a signed webhook.test notification now: exit 0 if the receiver took it, 1 if not")
    .action(async (subscriptionId: string, _options, command: Command) => {
      const result = await dataOf(
        client(command).POST("/api/v1/webhooks/{subscriptionId}/test", {
          params: { path: { subscriptionId } },
        }),
      );
      show(command, result, (outcome) =>
        fields([
          ["Delivered", outcome.delivered ? "yes" : "no"],
          ["Status", outcome.status],
          ["Error", outcome.error],
          ["Took", `${Math.round(outcome.durationMs)} ms`],
          ["Notification", outcome.notificationId],
        ]),
      );
      environment.exitCode = result.delivered ? ExitCode.ok : ExitCode.refused;
    });

  paging(
    webhooks.command("deliveries <subscriptionId>").description("a subscription's deliveries, newest first"),
  ).action(async (subscriptionId: string, options, command: Command) => {
    const query = { limit: options.limit, cursor: options.cursor };
    const data = await dataOf(
      client(command).GET("/api/v1/webhooks/{subscriptionId}/deliveries", {
        params: { path: { subscriptionId }, query },
      }),
    );
    page(command, data, ({ items }) =>
      table(
        ["delivery", "type", "state", "attempts", "last answer", "next attempt"],
        items.map((delivery) => [
          delivery.deliveryId,
          delivery.notificationType,
          delivery.state,
          delivery.attempts,
          delivery.lastAttempt?.status ?? delivery.lastAttempt?.error,
          delivery.nextAttemptAt,
        ]),
      ),
    );
  });
}

function subscriptionFields(subscription: Schemas["Subscription"]): [string, Cell][] {
  return [
    ["Subscription", subscription.subscriptionId],
    ["URL", subscription.url],
    ["Events", subscription.eventTypes.join(", ")],
    ["Class", subscription.agentClass],
    ["Description", subscription.description],
    ["State", subscription.state],
    ["Disabled", subscription.disabledAt && `${subscription.disabledAt}: ${subscription.disabledReason}`],
    ["Created", `${subscription.createdAt} by ${subscription.createdBy}`],
  ];
}
