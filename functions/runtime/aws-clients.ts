import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { KinesisClient } from "@aws-sdk/client-kinesis";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { AwsEndpointEnvNames } from "../shared/env-names.js";
import type { ClientEnv } from "./aws-clients/environment.js";
import { madeOnFirstUse, settingsFor } from "./aws-clients/settings.js";

/** DynamoDB client; talks to AWS_ENDPOINT_URL_DYNAMODB when set (DynamoDB Local, LocalStack). */
export function makeDynamoDbClient(env: ClientEnv = process.env): DynamoDBClient {
  return new DynamoDBClient(settingsFor(env, env[AwsEndpointEnvNames.dynamodb])());
}

/** The Beacon table's items as documents, an attribute left undefined left out rather than refused. */
export function makeDocumentClient(env: ClientEnv = process.env): DynamoDBDocumentClient {
  const settings = settingsFor(env, env[AwsEndpointEnvNames.dynamodb]);
  return madeOnFirstUse(() =>
    DynamoDBDocumentClient.from(new DynamoDBClient(settings()), {
      marshallOptions: { removeUndefinedValues: true },
    }),
  );
}

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

/** EventBridge client; talks to AWS_ENDPOINT_URL_EVENTBRIDGE when set (the local stack's moto server). */
export function makeEventBridgeClient(env: ClientEnv = process.env): EventBridgeClient {
  const settings = settingsFor(env, env[AwsEndpointEnvNames.eventbridge]);
  return madeOnFirstUse(() => new EventBridgeClient(settings()));
}
