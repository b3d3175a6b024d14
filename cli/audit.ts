/** `beacon audit`: who asked for which change, and how the API answered (admins). */
import { type Command, InvalidArgumentError } from "commander";
import { dataOf } from "../web/src/api/client.js";
import type { CommandKit } from "./kit.js";
import { table } from "./output.js";

/** A time for --from and --to: an ISO 8601 date-time, or a date (its midnight, UTC), sent as ISO 8601. */
export function dateTimeOption(value: string): string {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(parsed.getTime())) {
    throw new InvalidArgumentError("expected a date (2026-11-30) or an ISO 8601 time (2026-11-30T09:00:00Z)");
  }
  return parsed.toISOString();
}

export function addAuditCommands(program: Command, kit: CommandKit): void {
  const { client, page, paging } = kit;
  const audit = program
    .command("audit")
    .description("the tenant's audit trail: every change asked for (admins)");
  paging(
    audit
      .command("list")
      .description("audit records, newest first")
      .option("--from <time>", "records at or after this time", dateTimeOption)
      .option("--to <time>", "records before this time", dateTimeOption)
      .option("--actor <subject>", "only this person's or client's records (the token's subject)")
      .option("--operation <operationId>", "only this operation's records (putClass, createOperation, …)"),
  ).action(async (options, command: Command) => {
    const query = {
      from: options.from,
      to: options.to,
      actor: options.actor,
      operation: options.operation,
      limit: options.limit,
      cursor: options.cursor,
    };
    const data = await dataOf(client(command).GET("/api/v1/audit", { params: { query } }));
    page(command, data, ({ items }) =>
      table(
        ["at", "actor", "role", "operation", "target", "status"],
        items.map((record) => [
          record.at,
          record.actor.subject,
          record.actor.role,
          record.operationId,
          Object.entries(record.target ?? {})
            .map(([name, value]) => `${name}=${value}`)
            .join(" "),
          record.errorCode ? `${record.status} ${record.errorCode}` : record.status,
        ]),
      ),
    );
  });
}
