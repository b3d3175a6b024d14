import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import type { ClientEnv } from "./environment.js";
import { madeOnFirstUse, settingsFor } from "./settings.js";

/** EventBridge client; talks to AWS_ENDPOINT_URL_EVENTBRIDGE when set (the local stack's moto server). */
export function makeEventBridgeClient(env: ClientEnv = process.env): EventBridgeClient {
  const settings = settingsFor(env, env[AwsEndpointEnvNames.eventbridge]);
  return madeOnFirstUse(() => new EventBridgeClient(settings()));
}
