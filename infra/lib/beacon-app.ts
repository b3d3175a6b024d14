import { type App, Tags, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { type BeaconConfig, readConfig } from "./config.js";
import { StatefulStack } from "./stateful-stack.js";
import { StatelessStack } from "./stateless-stack.js";

export interface BeaconApp {
  readonly config: BeaconConfig;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
}

/** Builds one stage of Beacon from the app's context, with the AWS Solutions checks switched on. */
export function buildBeacon(app: App): BeaconApp {
  const config = readConfig(app.node);
  // Environment-agnostic unless the context names one, so synthesis needs no credentials.
  const env = { account: config.account, region: config.region };
  const stackPrefix = `Beacon-${config.stage}`;
  const stateful = new StatefulStack(app, `${stackPrefix}-Stateful`, {
    env,
    description: "Beacon: registry table, event stream, cache and network",
    config,
  });
  const stateless = new StatelessStack(app, `${stackPrefix}-Stateless`, {
    env,
    description: "Beacon: functions, agent ingress, alarms and dashboard",
    config,
    stateful,
  });
  Tags.of(app).add("project", "beacon");
  Tags.of(app).add("stage", config.stage);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { config, stateful, stateless };
}
