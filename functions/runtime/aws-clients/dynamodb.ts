import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { AwsEndpointEnvNames } from "../../shared/env-names.js";
import type { ClientEnv } from "./environment.js";
import { madeOnFirstUse, settingsFor } from "./settings.js";

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
