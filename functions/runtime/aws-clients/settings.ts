import { NodeHttpHandler } from "@smithy/node-http-handler";
import { connectionTimeoutMs, requestTimeoutFor } from "../../adapters/aws/call-timeouts.js";
import { type ClientEnv, isCustomEndpoint, maxAttempts } from "./environment.js";

/**
 * HTTP/1.1 over kept-alive connections (the SDK's NodeHttpHandler keeps them alive, at most 50 at once):
 * after a container's first requests, each request is a few packets on a connection already open.
 */
function requestHandlerFor(endpoint: string | undefined) {
  return new NodeHttpHandler({
    connectionTimeout: connectionTimeoutMs,
    requestTimeout: requestTimeoutFor(isCustomEndpoint(endpoint)),
    throwOnRequestTimeout: true,
  });
}

/**
 * Bounded attempts over kept-alive connections, to `endpoint` when one is set. The environment is read now and the
 * settings made later, with the client: a client made on first use must be the one its function was given, even
 * if the environment has changed since (local tooling loads several functions, each with its own, into one process).
 */
export function settingsFor(env: ClientEnv, endpoint: string | undefined) {
  const fromEnvironment = endpointSettings(env, endpoint);
  return () => ({ maxAttempts, requestHandler: requestHandlerFor(endpoint), ...fromEnvironment });
}

/**
 * `make`'s client, made when it is first used rather than when a function starts: a client's configuration costs
 * a cold start a few milliseconds of CPU, and most requests use few of a function's clients (a steady heartbeat
 * none but the stream's). A client never made has nothing to destroy.
 */
export function madeOnFirstUse<Client extends { destroy(): void }>(make: () => Client): Client {
  let client: Client | undefined;
  return new Proxy({} as Client, {
    get(_unmade, property) {
      if (client === undefined && property === "destroy") return () => {};
      client ??= make();
      const value: unknown = Reflect.get(client, property, client);
      return typeof value === "function" ? value.bind(client) : value;
    },
  });
}

/**
 * With an endpoint override, region and credentials come from the same record, so local tooling can
 * aim a client at an emulator without exporting variables process-wide. Without one, the SDK's
 * default chains (the Lambda environment on AWS) decide.
 */
export function endpointSettings(env: ClientEnv, endpoint: string | undefined) {
  if (!isCustomEndpoint(endpoint)) return {};
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  return {
    endpoint,
    ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN } }
      : {}),
  };
}
