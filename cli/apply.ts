/**
 * `beacon diff -f <folder>` and `beacon apply -f <folder>`: fleet configuration as code. Both read and check
 * the whole folder before any request, read the tenant's current state, and plan; `diff` shows the plan,
 * `apply` makes its changes in a safe order (what others depend on first, deletions last and in reverse).
 */
import { appendFileSync } from "node:fs";
import type { Command } from "commander";
import { type ConsoleClient, dataOf } from "../web/src/api/client.js";
import { uploadInParts } from "../web/src/api/parts-upload.js";
import { ASSET_CONTENT_TYPE, filePartSender, PARALLEL_PARTS, syncResourceQueued } from "./assets.js";
import { ExitCode, UsageError } from "./exit.js";
import { type FleetObject, FolderError, type ParameterObject } from "./fleet/objects.js";
import {
  type Change,
  type CurrentState,
  changesAnything,
  plan,
  planJson,
  renderPlan,
  type Target,
} from "./fleet/plan.js";
import type { CommandKit } from "./kit.js";

interface FolderOptions {
  file: string;
  prune?: boolean;
  webhookSecrets?: string;
}

export function registerApply(program: Command, kit: CommandKit): void {
  const { io, environment, client, globals } = kit;

  const planned = async (command: Command, options: FolderOptions) => {
    let objects: FleetObject[];
    try {
      // The API's compiled validators are loaded only by the commands that read a folder.
      const { readFleetFolder } = await import("./fleet/folder.js");
      objects = await readFleetFolder(options.file);
    } catch (error) {
      if (error instanceof FolderError) throw new UsageError(error.message);
      throw error;
    }
    const api = client(command);
    const changes = plan(objects, await currentState(api, objects), { prune: options.prune === true });
    return { api, changes };
  };
  const show = (command: Command, changes: Change[]) =>
    io.out(`${globals(command).json ? JSON.stringify(planJson(changes), null, 2) : renderPlan(changes)}\n`);

  program
    .command("diff")
    .description(
      `the plan for a fleet folder: what apply would change; exit 0 when nothing, ${ExitCode.changes} when something`,
    )
    .requiredOption("-f, --file <folder>", "the folder of YAML files (apiVersion: beacon/v1)")
    .option("--prune", "plan to delete what the folder does not declare (groups, parameters, webhooks)")
    .action(async (options: FolderOptions, command: Command) => {
      const { changes } = await planned(command, options);
      show(command, changes);
      environment.exitCode = changesAnything(changes) ? ExitCode.changes : ExitCode.ok;
    });

  program
    .command("apply")
    .description("make the tenant what a fleet folder declares; applying it again changes nothing")
    .requiredOption("-f, --file <folder>", "the folder of YAML files (apiVersion: beacon/v1)")
    .option("--prune", "delete what the folder does not declare (groups, parameters, webhooks)")
    .option(
      "--webhook-secrets <file>",
      "append each created webhook's signing secret to this file (JSON lines; the API shows it once)",
    )
    .action(async (options: FolderOptions, command: Command) => {
      const { api, changes } = await planned(command, options);
      show(command, changes);
      const todo = changes.filter(({ action }) => action !== "unchanged" && action !== "unmanaged");
      // Creations and updates in the plan's order (settings, classes, groups, parameters, flows, webhooks),
      // then deletions in reverse, so that nothing is deleted while something declared still needs it.
      const ordered = [
        ...todo.filter(({ action }) => action !== "delete"),
        ...todo.filter(({ action }) => action === "delete").reverse(),
      ];
      for (const change of ordered) {
        io.err(`${change.action} ${change.kind} ${change.name}\n`);
        await make(api, change, options.webhookSecrets, io.err);
      }
      io.err(`Applied: ${ordered.length} change${ordered.length === 1 ? "" : "s"}\n`);
    });
}

/** Everything of the tenant a folder's objects concern, read through the API. */
export async function currentState(api: ConsoleClient, objects: FleetObject[]): Promise<CurrentState> {
  const owners = (kinds: string[], owner: (object: FleetObject) => string | undefined) =>
    new Set(
      objects
        .filter((object) => kinds.includes(object.kind))
        .map(owner)
        .filter(Boolean) as string[],
    );
  const classNames = owners(["Class", "ClassParameter"], (object) =>
    object.kind === "Class" ? object.name : object.kind === "ClassParameter" ? object.owner : undefined,
  );
  const groupNames = owners(["Group", "GroupParameter"], (object) =>
    object.kind === "Group" ? object.name : object.kind === "GroupParameter" ? object.owner : undefined,
  );
  const flowClasses = owners(["FlowVersion"], (object) =>
    object.kind === "FlowVersion" ? object.className : undefined,
  );

  const [settings, classes, groups, webhooks] = await Promise.all([
    dataOf(api.GET("/api/v1/settings")),
    everyPage((cursor) => api.GET("/api/v1/classes", { params: { query: { cursor, limit: 100 } } })),
    everyPage((cursor) => api.GET("/api/v1/groups", { params: { query: { cursor, limit: 100 } } })),
    everyPage((cursor) => api.GET("/api/v1/webhooks", { params: { query: { cursor, limit: 100 } } })),
  ]);
  const classMap = new Map(classes.map((agentClass) => [agentClass.name, agentClass]));
  const groupMap = new Map(groups.map((group) => [group.name, group]));
  const classParameters = new Map(
    await Promise.all(
      [...classNames]
        .filter((name) => classMap.has(name))
        .map(
          async (className) =>
            [
              className,
              await dataOf(
                api.GET("/api/v1/classes/{className}/parameters", { params: { path: { className } } }),
              ),
            ] as const,
        ),
    ),
  );
  const groupParameters = new Map(
    await Promise.all(
      [...groupNames]
        .filter((name) => groupMap.has(name))
        .map(
          async (groupName) =>
            [
              groupName,
              await dataOf(
                api.GET("/api/v1/groups/{groupName}/parameters", { params: { path: { groupName } } }),
              ),
            ] as const,
        ),
    ),
  );
  // Each agent's values read once; the first object naming the agent is the one named should it be missing.
  const firstOfAgent = new Map<string, ParameterObject>();
  for (const object of objects)
    if (object.kind === "AgentParameter" && !firstOfAgent.has(object.owner))
      firstOfAgent.set(object.owner, object);
  const agentParameters = new Map(await Promise.all([...firstOfAgent.values()].map(ownValuesOf(api))));
  const flows = new Map(
    await Promise.all(
      [...flowClasses]
        .filter((name) => classMap.has(name))
        .map(
          async (className) =>
            [
              className,
              await everyPage((cursor) =>
                api.GET("/api/v1/classes/{className}/flows", {
                  params: { path: { className }, query: { cursor, limit: 100 } },
                }),
              ),
            ] as const,
        ),
    ),
  );
  const assetIds = objects.flatMap((object) => (object.kind === "Asset" ? [object.sha256] : []));
  const held = await Promise.all(
    assetIds.map((assetId) =>
      unlessAbsent(api.GET("/api/v1/assets/{assetId}", { params: { path: { assetId } } })),
    ),
  );
  const resourceSets = new Map(
    (
      await Promise.all(
        objects
          .flatMap((object) => (object.kind === "ClassResources" ? [object.className] : []))
          .filter((name) => classMap.has(name))
          .map(async (className) => {
            const set = await unlessAbsent(
              api.GET("/api/v1/classes/{className}/resources", { params: { path: { className } } }),
            );
            return set ? [[className, set] as const] : [];
          }),
      )
    ).flat(),
  );
  return {
    settings,
    classes: classMap,
    groups: groupMap,
    classParameters,
    groupParameters,
    agentParameters,
    flows,
    assets: new Set(assetIds.filter((_assetId, index) => held[index] !== undefined)),
    resourceSets,
    webhooks,
  };
}

/**
 * The values set for an agent itself, as a list of its own; an agent the tenant does not have fails the plan,
 * naming the object: a value for an agent that has not registered yet, or a mistyped id, is nothing to apply.
 */
const ownValuesOf = (api: ConsoleClient) => async (object: ParameterObject) => {
  const agentId = object.owner;
  const parameters = await unlessAbsent(
    api.GET("/api/v1/agents/{agentId}/parameters", { params: { path: { agentId } } }),
  );
  if (!parameters)
    throw new UsageError(
      `${object.source.file} (document ${object.source.document}, AgentParameter ${agentId}/${object.name}): ` +
        `the tenant has no agent ${agentId}`,
    );
  return [agentId, { items: parameters.agentValues }] as const;
};

/** What a request reads, or undefined when the API has none of it (404). */
async function unlessAbsent<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T | undefined> {
  const answer = await request;
  return answer.response.status === 404 ? undefined : dataOf(Promise.resolve(answer));
}

/** Every item of a paged list, page after page. */
async function everyPage<T>(
  page: (
    cursor: string | undefined,
  ) => Promise<{ data?: { items: T[]; nextCursor?: string }; error?: unknown; response: Response }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const data = await dataOf(page(cursor));
    items.push(...data.items);
    cursor = data.nextCursor;
  } while (cursor !== undefined);
  return items;
}

/**
 * The one request a change needs (a flow version with a new label: its label's; a disabled webhook's
 * subscription: enabling it).
 */
async function make(
  api: ConsoleClient,
  change: Change,
  webhookSecrets: string | undefined,
  say: (text: string) => void,
): Promise<void> {
  if (change.action === "delete") return remove(api, change.target);
  if (change.action !== "create" && change.action !== "update") return;
  if (change.action === "update" && change.subscriptionId !== undefined) {
    const { subscriptionId } = change;
    await dataOf(
      api.POST("/api/v1/webhooks/{subscriptionId}/enable", { params: { path: { subscriptionId } } }),
    );
    say(`  ${subscriptionId}: enabled\n`);
    return;
  }
  const { object } = change;
  switch (object.kind) {
    case "Settings":
      await dataOf(api.PUT("/api/v1/settings", { body: object.spec }));
      return;
    case "Class":
      await dataOf(
        api.PUT("/api/v1/classes/{className}", {
          params: { path: { className: object.name } },
          body: object.spec,
        }),
      );
      return;
    case "Group":
      if (change.action === "create") {
        await dataOf(api.POST("/api/v1/groups", { body: { name: object.name, ...object.spec } }));
      } else {
        await dataOf(
          api.PUT("/api/v1/groups/{groupName}", {
            params: { path: { groupName: object.name } },
            body: object.spec,
          }),
        );
      }
      return;
    case "ClassParameter":
      await dataOf(
        api.PUT("/api/v1/classes/{className}/parameters/{name}", {
          params: { path: { className: object.owner, name: object.name } },
          body: object.spec,
        }),
      );
      return;
    case "GroupParameter":
      await dataOf(
        api.PUT("/api/v1/groups/{groupName}/parameters/{name}", {
          params: { path: { groupName: object.owner, name: object.name } },
          body: object.spec,
        }),
      );
      return;
    case "AgentParameter":
      await dataOf(
        api.PUT("/api/v1/agents/{agentId}/parameters/{name}", {
          params: { path: { agentId: object.owner, name: object.name } },
          body: object.spec,
        }),
      );
      return;
    case "FlowVersion":
      if (change.action === "create") {
        await dataOf(
          api.POST("/api/v1/classes/{className}/flows", {
            params: { path: { className: object.className }, query: { label: object.label || undefined } },
            body: object.content as never,
            bodySerializer: (body) => body as unknown as string,
            headers: { "content-type": object.contentType },
          }),
        );
      } else {
        await dataOf(
          api.PUT("/api/v1/classes/{className}/flows/{hash}/label", {
            params: { path: { className: object.className, hash: object.hash } },
            body: { label: object.label ?? "" },
          }),
        );
      }
      return;
    case "Asset": {
      const { asset, created } = await uploadInParts(
        api,
        {
          name: object.name,
          sizeBytes: object.sizeBytes,
          sha256: object.sha256,
          contentType: ASSET_CONTENT_TYPE,
        },
        filePartSender(object.location),
        { parallel: PARALLEL_PARTS, onSent: () => undefined },
      );
      say(`  ${asset.assetId}: ${created ? "uploaded" : "already stored, nothing sent"}\n`);
      return;
    }
    case "ClassResources": {
      const pushed = await dataOf(
        api.PUT("/api/v1/classes/{className}/resources", {
          params: { path: { className: object.className } },
          body: object.spec,
        }),
      );
      say(`  ${syncResourceQueued(pushed)}\n`);
      return;
    }
    case "Webhook": {
      const created = await dataOf(api.POST("/api/v1/webhooks", { body: object.spec }));
      if (webhookSecrets === undefined) {
        say(
          `  ${created.subscriptionId}: its signing secret is not kept (--webhook-secrets <file> keeps it)\n`,
        );
      } else {
        const line = { subscriptionId: created.subscriptionId, url: created.url, secret: created.secret };
        appendFileSync(webhookSecrets, `${JSON.stringify(line)}\n`, { mode: 0o600 });
        say(`  ${created.subscriptionId}: its signing secret appended to ${webhookSecrets}\n`);
      }
      return;
    }
  }
}

async function remove(api: ConsoleClient, target: Target): Promise<void> {
  switch (target.kind) {
    case "Class":
      throw new UsageError(`Class ${target.name} cannot be deleted through the API`);
    case "Group":
      await dataOf(
        api.DELETE("/api/v1/groups/{groupName}", { params: { path: { groupName: target.name } } }),
      );
      return;
    case "ClassParameter":
      await dataOf(
        api.DELETE("/api/v1/classes/{className}/parameters/{name}", {
          params: { path: { className: target.owner, name: target.name } },
        }),
      );
      return;
    case "GroupParameter":
      await dataOf(
        api.DELETE("/api/v1/groups/{groupName}/parameters/{name}", {
          params: { path: { groupName: target.owner, name: target.name } },
        }),
      );
      return;
    case "AgentParameter":
      await dataOf(
        api.DELETE("/api/v1/agents/{agentId}/parameters/{name}", {
          params: { path: { agentId: target.owner, name: target.name } },
        }),
      );
      return;
    case "Webhook":
      await dataOf(
        api.DELETE("/api/v1/webhooks/{subscriptionId}", {
          params: { path: { subscriptionId: target.subscriptionId } },
        }),
      );
      return;
  }
}
