/**
 * `beacon`'s commands, on commander: each reads its context, calls the console API through the typed client
 * the web console uses, and writes a table for people or, with `--json`, the API's own JSON for scripts.
 */
import { Argument, Command, InvalidArgumentError } from "commander";
import { type ConsoleClient, dataOf, type Schemas } from "../web/src/api/client.js";
import { flowContentType } from "../web/src/flow-file.js";
import { shortHash } from "../web/src/format.js";
import { claimsOf } from "../web/src/jwt.js";
import { describeBatch, FINAL_STATES, rolloutProgress } from "../web/src/rollout-progress.js";
import { registerApply } from "./apply.js";
import { addAssetCommands, addResourceSetCommands } from "./assets.js";
import { addAuditCommands } from "./audit.js";
import { addBundleCommands } from "./bundles.js";
import { addCertificateCommands } from "./certificates.js";
import { completionScript, SHELLS, type Shell } from "./completion.js";
import { readConfig, withContext, withCurrent, writeConfig } from "./config.js";
import { ExitCode, UsageError } from "./exit.js";
import { addFlowsDiff } from "./flows-diff.js";
import { commandKit, type Environment, integer, readContent } from "./kit.js";
import { type Cell, fields, table, versionName } from "./output.js";
import { renewSignIn } from "./session.js";
import { signInWithBrowser } from "./sign-in.js";
import { addWebhookCommands } from "./webhooks.js";

const TENANT_CLAIM = "custom:tenant";

/** A share of a class: `3` agents, or `10%` of them. */
export function share(value: string): Schemas["Share"] {
  const match = /^(\d+)(%?)$/.exec(value);
  if (match === null) throw new InvalidArgumentError("expected a count (3) or a percentage (10%)");
  const number = Number(match[1]);
  if (match[2] === "%") {
    if (number < 1 || number > 100) throw new InvalidArgumentError("a percentage is 1% to 100%");
    return { percent: number };
  }
  return { count: number };
}

/** The commands that only read or write the CLI's own configuration: they need no sign-in renewed. */
const LOCAL_COMMANDS = new Set(["context", "login", "completion"]);

function talksToTheApi(action: Command): boolean {
  let topLevel = action;
  while (topLevel.parent?.parent) topLevel = topLevel.parent;
  return !LOCAL_COMMANDS.has(topLevel.name());
}

export function beaconProgram(environment: Environment): Command {
  const { io } = environment;

  const program = new Command("beacon")
    .description(
      "Beacon's operator CLI: agents, classes, flows, rollouts, operations, assets, debug bundles, certificates, webhooks and audit of a tenant's fleet",
    )
    .option("--context <name>", "the context to use instead of the current one")
    .option("--json", "write the API's JSON instead of a table")
    .showHelpAfterError("(beacon --help, or --help after any command, says how)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) });

  const kit = commandKit(environment);
  const { configFile, globals, client, show, page, paging } = kit;
  program.hook("preAction", async (_program, action) => {
    if (!talksToTheApi(action)) return;
    await renewSignIn(configFile, environment.env, globals(action).context);
  });

  // Contexts and sign-in.
  const context = program.command("context").description("deployments and tenants to talk to");
  context
    .command("add <name>")
    .description("add a context (the first one added becomes the current one)")
    .requiredOption("--url <url>", "the web console's address, e.g. https://beacon.example.com")
    .action((name: string, options: { url: string }) => {
      const config = readConfig(configFile);
      const kept = config.contexts[name];
      writeConfig(configFile, withContext(config, name, { ...kept, url: options.url }));
      io.out(`Context ${name} added: ${new URL(options.url).origin}\n`);
    });
  context
    .command("use <name>")
    .description("make a context the current one")
    .action((name: string) => {
      writeConfig(configFile, withCurrent(readConfig(configFile), name));
      io.out(`Using context ${name}\n`);
    });
  context
    .command("list")
    .description("the contexts, the current one starred")
    .action((_options, command: Command) => {
      const config = readConfig(configFile);
      const rows = Object.entries(config.contexts).map(([name, { url, tenant, token }]) => ({
        name,
        current: name === config.current,
        url,
        tenant,
        signedIn: token !== undefined,
      }));
      show(command, rows, (items) =>
        table(
          ["", "name", "url", "tenant", "signed in"],
          items.map((row) => [
            row.current ? "*" : "",
            row.name,
            row.url,
            row.tenant,
            row.signedIn ? "yes" : "no",
          ]),
        ),
      );
    });

  program
    .command("login")
    .description("sign in to the current context: in a browser with the identity provider, or with --token")
    .option("--token <token>", "a token to keep instead (from a CI secret, or `npm run token` locally)")
    .option("--no-browser", "print the sign-in address only, without opening a browser")
    .action(async (options: { token?: string; browser: boolean }, command: Command) => {
      const config = readConfig(configFile);
      const name = globals(command).context ?? config.current;
      const kept = name === undefined ? undefined : config.contexts[name];
      if (name === undefined || kept === undefined) {
        throw new UsageError("No context to sign in to: beacon context add <name> --url <console URL>");
      }
      const { idToken: token, refreshToken } =
        options.token === undefined
          ? await signInWithBrowser(kept.url, io, options.browser)
          : { idToken: options.token, refreshToken: undefined };
      const tenant = claimsOf(token)?.[TENANT_CLAIM];
      const next = { ...kept, token, refreshToken, tenant: typeof tenant === "string" ? tenant : undefined };
      writeConfig(configFile, withContext(config, name, next));
      io.out(`Signed in to ${name}${next.tenant === undefined ? "" : ` as tenant ${next.tenant}`}\n`);
    });

  // Agents.
  const agents = program.command("agents").description("the tenant's agents");
  paging(
    agents
      .command("list")
      .description("agents, by id")
      .option("--class <class>", "only this class's agents")
      .option("--status <status>", "only online or offline agents")
      .option("--q <text>", "part of the agent id or hostname"),
  ).action(async (options, command: Command) => {
    const query = {
      class: options.class,
      status: options.status,
      q: options.q,
      limit: options.limit,
      cursor: options.cursor,
    };
    const data = await dataOf(client(command).GET("/api/v1/agents", { params: { query } }));
    page(command, data, ({ items }) =>
      table(
        ["agent", "class", "status", "last seen", "flow", "attention"],
        items.map((agent) => [
          agent.agentId,
          agent.agentClass,
          agent.status,
          agent.lastSeen,
          agent.flowVersion?.version === undefined
            ? shortHash(agent.flowId)
            : `v${agent.flowVersion.version}`,
          agent.attention?.join(","),
        ]),
      ),
    );
  });
  agents
    .command("show <agentId>")
    .description("one agent")
    .action(async (agentId: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).GET("/api/v1/agents/{agentId}", { params: { path: { agentId } } }),
      );
      show(command, data, (agent) =>
        fields([
          ["Agent", agent.agentId],
          ["Class", agent.agentClass],
          ["Status", agent.status],
          ["Last seen", agent.lastSeen],
          ["Hostname", agent.hostname],
          ["Flow", agent.flowId],
          [
            "Flow version",
            agent.flowVersion?.version === undefined ? undefined : `v${agent.flowVersion.version}`,
          ],
          ["Run status", agent.runStatus],
          ["Binary", agent.binaryName],
          ["Agent version", agent.agentVersion],
        ]),
      );
    });

  // Classes and flows.
  const classes = program.command("classes").description("agent classes");
  paging(classes.command("list").description("classes, by name")).action(
    async (options, command: Command) => {
      const query = { limit: options.limit, cursor: options.cursor };
      const data = await dataOf(client(command).GET("/api/v1/classes", { params: { query } }));
      page(command, data, ({ items }) =>
        table(["class", "agents", "online", "flow", "rollout"], items.map(classRow)),
      );
    },
  );
  classes
    .command("show <className>")
    .description("one class")
    .action(async (className: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).GET("/api/v1/classes/{className}", { params: { path: { className } } }),
      );
      show(command, data, (agentClass) =>
        fields([
          ["Class", agentClass.name],
          ["Description", agentClass.description],
          ["Heartbeat interval", `${agentClass.heartbeatIntervalSeconds} s`],
          ["Agents", `${agentClass.agents.total} (${agentClass.agents.online} online)`],
          ["Target flow", agentClass.flow?.target],
          ["Target version", versionName(agentClass.flow?.targetVersion)],
          ["Requires approval", agentClass.requireApproval],
          ["Active rollout", agentClass.activeRolloutId],
        ]),
      );
    });

  addResourceSetCommands(classes, kit);

  const flows = program.command("flows").description("flow versions of a class");
  flows
    .command("publish <file>")
    .description(
      "publish a flow file (MiNiFi Java flow.json, or MiNiFi C++ JSON or YAML) as a version of a class",
    )
    .requiredOption("--class <class>", "the class to publish it to")
    .option("--label <label>", "a label for the new version")
    .option("--require-compatible", "refuse the version unless every agent of the class could run it")
    .action(async (file: string, options, command: Command) => {
      const text = readContent(file);
      const result = await client(command).POST("/api/v1/classes/{className}/flows", {
        params: {
          path: { className: options.class },
          query: { label: options.label, requireCompatible: options.requireCompatible },
        },
        body: text as never,
        bodySerializer: (body) => body as string,
        headers: { "content-type": flowContentType(file) },
      });
      const version = await dataOf(Promise.resolve(result));
      const created = result.response.status === 201;
      show(command, version, (flow) =>
        [
          `${created ? "Published" : "Already published:"} ${versionName(flow) ?? ""} of class ${flow.className}`,
          `Hash: ${flow.hash}`,
        ].join("\n"),
      );
    });
  paging(flows.command("list <className>").description("a class's flow versions")).action(
    async (className: string, options, command: Command) => {
      const query = { limit: options.limit, cursor: options.cursor };
      const data = await dataOf(
        client(command).GET("/api/v1/classes/{className}/flows", { params: { path: { className }, query } }),
      );
      page(command, data, ({ items }) =>
        table(
          ["version", "hash", "format", "bytes", "created", "by"],
          items.map((flow) => [
            versionName(flow),
            flow.hash,
            flow.format,
            flow.sizeBytes,
            flow.createdAt,
            flow.createdBy,
          ]),
        ),
      );
    },
  );

  addFlowsDiff(flows, kit);

  // Rollouts.
  const rollouts = program.command("rollouts").description("rolling a flow version out to a class");
  paging(
    rollouts
      .command("list")
      .description("rollouts, newest first")
      .option("--class <class>", "only this class's rollouts")
      .option("--state <state>", "only rollouts in this state (awaiting_approval, rolling, completed, …)"),
  ).action(async (options, command: Command) => {
    const query = {
      className: options.class,
      state: options.state,
      limit: options.limit,
      cursor: options.cursor,
    };
    const data = await dataOf(client(command).GET("/api/v1/rollouts", { params: { query } }));
    page(command, data, ({ items }) =>
      table(
        ["rollout", "class", "state", "to", "healthy", "failed", "selected", "created"],
        items.map((rollout) => [
          rollout.rolloutId,
          rollout.className,
          rollout.state,
          versionName(rollout.toVersion) ?? shortHash(rollout.toFlow),
          rollout.counts.healthy,
          rollout.counts.failed,
          rollout.counts.selected,
          rollout.createdAt,
        ]),
      ),
    );
  });
  rollouts
    .command("start")
    .description("start rolling a flow version out to a class: a canary, then batches")
    .requiredOption("--class <class>", "the class")
    .requiredOption("--flow <hash>", "the flow version's hash (beacon flows list <class>)")
    .option("--canary <share>", "the canary: a count (2) or a percentage (5%)", share)
    .option("--batch-size <n>", "agents per batch after the canary", integer(1))
    .option("--batch-interval <seconds>", "at least this long between batches", integer(0))
    .option("--soak <seconds>", "how long an updated agent must stay healthy", integer(0))
    .option("--failure-threshold <share>", "failures that stop the rollout: a count or a percentage", share)
    .option("--on-failure <action>", "what a failure does: pause or rollback")
    .option("--allow-incompatible", "start even if some agents could not run the version")
    .option("--watch", "then watch it as `rollouts watch` does")
    .option("--interval <seconds>", "with --watch: how often to look", integer(1), 2)
    .action(async (options, command: Command) => {
      const api = client(command);
      const plan = {
        canary: options.canary,
        batchSize: options.batchSize,
        batchIntervalSeconds: options.batchInterval,
        soakSeconds: options.soak,
        failureThreshold: options.failureThreshold,
        onFailure: options.onFailure,
      };
      const rollout = await dataOf(
        api.POST("/api/v1/rollouts", {
          body: {
            className: options.class,
            flowHash: options.flow,
            plan,
            allowIncompatible: options.allowIncompatible === true,
          },
        }),
      );
      if (!options.watch) {
        show(command, rollout, rolloutFields);
        return;
      }
      io.err(`Rollout ${rollout.rolloutId} started\n`);
      environment.exitCode = await watch(command, api, rollout.rolloutId, options.interval);
    });
  rollouts
    .command("show <rolloutId>")
    .description("one rollout")
    .action(async (rolloutId: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).GET("/api/v1/rollouts/{rolloutId}", { params: { path: { rolloutId } } }),
      );
      show(command, data, rolloutFields);
    });
  rollouts
    .command("watch <rolloutId>")
    .description("follow a rollout batch by batch until it is over: exit 0 if it completed, 1 otherwise")
    .option("--interval <seconds>", "how often to look", integer(1), 2)
    .action(async (rolloutId: string, options: { interval: number }, command: Command) => {
      environment.exitCode = await watch(command, client(command), rolloutId, options.interval);
    });
  const actions = {
    pause: "/api/v1/rollouts/{rolloutId}/pause",
    resume: "/api/v1/rollouts/{rolloutId}/resume",
    abort: "/api/v1/rollouts/{rolloutId}/abort",
  } as const;
  for (const [action, route] of Object.entries(actions)) {
    rollouts
      .command(`${action} <rolloutId>`)
      .description(`${action} a rollout`)
      .action(async (rolloutId: string, _options, command: Command) => {
        const data = await dataOf(client(command).POST(route, { params: { path: { rolloutId } } }));
        show(command, data, (rollout) => `Rollout ${rollout.rolloutId}: ${rollout.state}`);
      });
  }

  /** Progress lines to stderr as batches change, the final rollout to stdout; the exit code from its outcome. */
  async function watch(
    command: Command,
    api: ConsoleClient,
    rolloutId: string,
    seconds: number,
  ): Promise<number> {
    const path = { rolloutId };
    let rollout = await dataOf(api.GET("/api/v1/rollouts/{rolloutId}", { params: { path } }));
    const agentClass = await dataOf(
      api.GET("/api/v1/classes/{className}", { params: { path: { className: rollout.className } } }),
    );
    const said = new Map<number | string, string>();
    const say = (key: number | string, line: string) => {
      if (said.get(key) === line) return;
      said.set(key, line);
      io.err(`${line}\n`);
    };
    for (;;) {
      const members = await dataOf(
        api.GET("/api/v1/rollouts/{rolloutId}/agents", { params: { path, query: { limit: 100 } } }),
      );
      const progress = rolloutProgress(
        rollout,
        members.items,
        agentClass.heartbeatIntervalSeconds,
        Date.now(),
      );
      say("state", `${rollout.rolloutId}: ${rollout.state}`);
      for (const batch of progress.batches) say(batch.batch, describeBatch(batch));
      if (FINAL_STATES.includes(rollout.state)) break;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      rollout = await dataOf(api.GET("/api/v1/rollouts/{rolloutId}", { params: { path } }));
    }
    show(command, rollout, rolloutFields);
    return rollout.state === "completed" ? ExitCode.ok : ExitCode.refused;
  }

  // Operations.
  const operations = program.command("operations").description("operations queued for agents");
  paging(
    operations
      .command("list")
      .description("operations, newest first")
      .option("--state <state>", "only operations in this state (queued, delivered, done, failed, …)")
      .option("--agent <agentId>", "only this agent's operations"),
  ).action(async (options, command: Command) => {
    const query = {
      state: options.state,
      agentId: options.agent,
      limit: options.limit,
      cursor: options.cursor,
    };
    const data = await dataOf(client(command).GET("/api/v1/operations", { params: { query } }));
    page(command, data, ({ items }) =>
      table(
        ["operation", "agent", "kind", "state", "created", "by"],
        items.map((operation) => [
          operation.operationId,
          operation.agentId,
          [operation.operation, operation.operand].filter(Boolean).join(" "),
          operation.state,
          operation.createdAt,
          operation.createdBy,
        ]),
      ),
    );
  });
  operations
    .command("cancel <operationId>")
    .description("cancel an operation not yet delivered")
    .action(async (operationId: string, _options, command: Command) => {
      const data = await dataOf(
        client(command).POST("/api/v1/operations/{operationId}/cancel", {
          params: { path: { operationId } },
        }),
      );
      show(command, data, (operation) => `Operation ${operation.operationId}: ${operation.state}`);
    });

  addAssetCommands(program, kit);
  addBundleCommands(program, kit);
  addCertificateCommands(program, kit);
  addWebhookCommands(program, kit);
  addAuditCommands(program, kit);
  registerApply(program, kit);

  program
    .command("completion")
    .description("a completion script for your shell: beacon completion bash >> ~/.bashrc")
    .addArgument(new Argument("<shell>", "bash or zsh").choices(SHELLS))
    .action((shell: Shell) => io.out(completionScript(program, shell)));

  return program;
}

function classRow(agentClass: Schemas["AgentClass"]): Cell[] {
  return [
    agentClass.name,
    agentClass.agents.total,
    agentClass.agents.online,
    versionName(agentClass.flow?.targetVersion) ?? shortHash(agentClass.flow?.target),
    agentClass.activeRolloutId,
  ];
}

function rolloutFields(rollout: Schemas["Rollout"]): string {
  const { counts } = rollout;
  return fields([
    ["Rollout", rollout.rolloutId],
    ["Class", rollout.className],
    ["State", rollout.state],
    ["Reason", rollout.reason],
    ["To", versionName(rollout.toVersion) ?? rollout.toFlow],
    ["From", versionName(rollout.fromVersion) ?? rollout.fromFlow],
    [
      "Agents",
      `${counts.selected} selected of ${rollout.classSize}, ${counts.healthy} healthy, ${counts.failed} failed`,
    ],
    ["Batches", rollout.batches],
    ["Created", `${rollout.createdAt} by ${rollout.createdBy}`],
    ["Finished", rollout.finishedAt],
  ]);
}
