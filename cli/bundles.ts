/**
 * `beacon bundles`: debug bundles, as the web console's agent page asks for them. A TRANSFER DEBUG operation
 * queued for the agent, delivered in its next heartbeat's reply, answered by the agent uploading the gzip tar
 * of its flow, configuration and logs; then fetched through the short-lived link the API hands out, streamed
 * to a file and never held whole, its size and SHA-256 said.
 */
import type { Command } from "commander";
import { dataOf, type Schemas } from "../web/src/api/client.js";
import { byteSize } from "../web/src/format.js";
import { saveStreamed } from "./download.js";
import { ExitCode } from "./exit.js";
import { type CommandKit, integer } from "./kit.js";
import { fields, table } from "./output.js";

const FAILED_STATES: Schemas["OperationState"][] = ["failed", "timed_out", "cancelled"];

/** Where a bundle is saved unless told: the name the bucket's answer gives it. */
export const bundleFileName = (operationId: string) => `debug-${operationId}.tar.gz`;

/** A waited-for operation's outcome: its bundle is ready, it will never be, or it is still on its way. */
export function bundleOutcome(operation: Schemas["Operation"]): "ready" | "failed" | "waiting" {
  if (operation.state === "done") return "ready";
  return FAILED_STATES.includes(operation.state) ? "failed" : "waiting";
}

export function addBundleCommands(program: Command, kit: CommandKit): void {
  const { io, client, show, page, paging } = kit;
  const bundles = program
    .command("bundles")
    .description("debug bundles: an agent's flow, configuration and logs");

  bundles
    .command("request <agentId>")
    .description("ask an agent for a debug bundle (TRANSFER DEBUG), uploaded after its next heartbeat")
    .action(async (agentId: string, _options, command: Command) => {
      const created = await dataOf(
        client(command).POST("/api/v1/operations", {
          body: { agentId, operation: "TRANSFER", operand: "DEBUG" },
        }),
      );
      show(command, created, (answer) =>
        "items" in answer
          ? answer.items
              .map((operation) => `Operation ${operation.operationId}: ${operation.state}`)
              .join("\n")
          : `Selection ${answer.selectionId}: ${answer.state}`,
      );
    });

  paging(
    bundles
      .command("list")
      .description("the debug bundles agents uploaded and not yet expired, newest first")
      .option("--agent <agentId>", "only this agent's bundles"),
  ).action(async (options, command: Command) => {
    const query = { agentId: options.agent, limit: options.limit, cursor: options.cursor };
    const data = await dataOf(client(command).GET("/api/v1/debug-bundles", { params: { query } }));
    page(command, data, ({ items }) =>
      table(
        ["operation", "agent", "size", "stored", "kept until"],
        items.map((bundle) => [
          bundle.operationId,
          bundle.agentId,
          byteSize(bundle.bytes),
          bundle.storedAt,
          bundle.expiresAt,
        ]),
      ),
    );
  });

  bundles
    .command("wait <operationId>")
    .description(
      "wait for a requested bundle: exit 0 once it is stored, 1 if the operation failed, 3 if --timeout passed first",
    )
    .option("--timeout <seconds>", "give up after this long", integer(1), 300)
    .option("--interval <seconds>", "how often to look", integer(1), 2)
    .action(async (operationId: string, options: { timeout: number; interval: number }, command: Command) => {
      const api = client(command);
      const deadline = Date.now() + options.timeout * 1000;
      let said: string | undefined;
      for (;;) {
        const operation = await dataOf(
          api.GET("/api/v1/operations/{operationId}", { params: { path: { operationId } } }),
        );
        const outcome = bundleOutcome(operation);
        if (operation.state !== said) {
          said = operation.state;
          io.err(`${operationId}: ${said}\n`);
        }
        if (outcome !== "waiting") {
          show(command, operation, operationFields);
          kit.environment.exitCode = outcome === "ready" ? ExitCode.ok : ExitCode.refused;
          return;
        }
        if (Date.now() + options.interval * 1000 > deadline) {
          io.err(`beacon: no bundle after ${options.timeout} s: the operation is ${operation.state}\n`);
          kit.environment.exitCode = ExitCode.timedOut;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, options.interval * 1000));
      }
    });

  bundles
    .command("download <operationId>")
    .description("save a bundle to a file, streamed, and say its size and SHA-256")
    .option("-o, --output <file>", "the file to write (default: debug-<operationId>.tar.gz)")
    .action(async (operationId: string, options: { output?: string }, command: Command) => {
      const { location } = await dataOf(
        client(command).GET("/api/v1/debug-bundles/{operationId}/content", {
          params: { path: { operationId }, query: { redirect: false } },
        }),
      );
      const saved = await saveStreamed("bundle", location, options.output ?? bundleFileName(operationId));
      show(command, saved, ({ file, bytes, sha256 }) =>
        fields([
          ["Saved", file],
          ["Size", `${bytes} bytes (${byteSize(bytes)})`],
          ["SHA-256", sha256],
        ]),
      );
    });
}

function operationFields(operation: Schemas["Operation"]): string {
  return fields([
    ["Operation", operation.operationId],
    ["Agent", operation.agentId],
    ["State", operation.state],
    ["Bundle", operation.bundle === undefined ? undefined : `${operation.bundle.bytes} bytes`],
    ["Kept until", operation.bundle?.expiresAt],
    ["Reason", operation.reason ?? operation.failureCause ?? operation.details],
  ]);
}
