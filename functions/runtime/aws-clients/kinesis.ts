import { KinesisClient } from "@aws-sdk/client-kinesis";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import type { ClientEnv } from "./environment.js";
import { madeOnFirstUse, settingsFor } from "./settings.js";

/**
 * Kinesis client; talks to AWS_ENDPOINT_URL_KINESIS when set (kinesalite, kinesis-mock, LocalStack). It speaks
 * HTTP/1.1 everywhere, not the SDK's default for Kinesis, HTTP/2: Beacon only puts records, which Kinesis takes
 * over either, and the emulators speak only HTTP/1.1. HTTP/2 would need concurrent streams on one session to
 * reuse its connection, and without them (disableConcurrentStreams) the SDK opens an isolated session, a new
 * TLS handshake, for every put.
 */
export function makeKinesisClient(env: ClientEnv = process.env): KinesisClient {
  const settings = settingsFor(env, env[AwsEndpointEnvNames.kinesis]);
  return madeOnFirstUse(() => new KinesisClient(settings()));
}
