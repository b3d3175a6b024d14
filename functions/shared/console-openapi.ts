import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import openApiDocument from "../../schemas/console/openapi.json" with { type: "json" };
import { BeaconError } from "../core/errors.js";
import { type Role, Roles } from "../core/identity/principal.js";
import { type BodyLimits, decodeBody, decodeBodyBytes, parseJsonObject } from "./http.js";

export { openApiDocument };

/** The console API's routes, parameters, bodies and responses: all read from schemas/console/openapi.json. */
export interface ConsoleOperation {
  operationId: string;
  /** The least role the operation needs (`x-beacon-role`). */
  role: Role;
  method: string;
  /** As API Gateway spells a route key: `GET /api/v1/agents/{agentId}`. */
  routeKey: string;
  path: string;
  /**
   * Path and query parameters, validated and converted to their types; the body when there is one:
   * a JSON value, or the bytes as sent for an operation that takes a document (`x-beacon-raw-body`).
   */
  parse(event: APIGatewayProxyEventV2, limits: ConsoleBodyLimits): ConsoleInput;
  /** Throws unless `body` is what the document promises for this status. */
  assertResponse(status: number, body: unknown): void;
}

export interface ConsoleBodyLimits extends BodyLimits {
  /**
   * Largest body an `x-beacon-raw-body` operation is read to, inflated: the largest any of them takes
   * (each use case holds its own to its limit, e.g. a flow's 5 MB, an asset's 4 MiB).
   */
  maxDocumentBytes: number;
}

export interface ConsoleInput {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  /** The request's Content-Type, for an operation that takes the bytes as sent. */
  contentType?: string;
}

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: "path" | "query";
  required?: boolean;
  schema: Schema;
}
interface OperationObject {
  operationId: string;
  "x-beacon-role": string;
  /** The body is a document (a flow, JSON or YAML) the use case reads itself, not a JSON request. */
  "x-beacon-raw-body"?: boolean;
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { $ref: string } | { content?: { "application/json"?: { schema: Schema } } }>;
}

const COMPONENTS_ID = "beacon-console";
const METHODS = ["get", "put", "post", "delete"] as const;
const document = openApiDocument as unknown as {
  paths: Record<
    string,
    Partial<Record<(typeof METHODS)[number], OperationObject>> & { parameters?: Parameter[] }
  >;
  components: {
    schemas: Schema;
    parameters: Record<string, Parameter>;
    responses: Record<string, { content?: { "application/json"?: { schema: Schema } } }>;
  };
};

/** Points a document reference at the components registered with the validators under COMPONENTS_ID. */
const retarget = (schema: Schema, prefix: string): Schema =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${prefix}#/$defs/`));

function validators(options: { coerceTypes: boolean }): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: false, coerceTypes: options.coerceTypes });
  formats.default(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: retarget(document.components.schemas, "") });
  return ajv;
}

/** Bodies and responses are checked as they are; path and query values arrive as text and are converted. */
const strict = validators({ coerceTypes: false });
const coercing = validators({ coerceTypes: true });

const resolve = <T>(value: T | { $ref: string }, components: Record<string, T>): T => {
  if (typeof value === "object" && value !== null && "$ref" in value) {
    return components[value.$ref.split("/").at(-1) as string] as T;
  }
  return value;
};

function describeFailure(where: string, errors: ErrorObject[] | null | undefined): string {
  const [first] = errors ?? [];
  const at = `${where}${first?.instancePath ?? ""}`;
  const extra =
    first?.keyword === "additionalProperties" ? ` (${String(first.params.additionalProperty)})` : "";
  return `${at} ${first?.message ?? "does not match the API document"}${extra}`;
}

function parametersSchema(parameters: Parameter[], location: "path" | "query"): Schema {
  const mine = parameters.filter((parameter) => parameter.in === location);
  return {
    type: "object",
    properties: Object.fromEntries(mine.map((parameter) => [parameter.name, parameter.schema])),
    required: mine.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    additionalProperties: false,
  };
}

function compile(
  path: string,
  method: string,
  operation: OperationObject,
  shared: Parameter[],
): ConsoleOperation {
  const role = operation["x-beacon-role"];
  if (!Roles.includes(role as Role))
    throw new Error(`${operation.operationId} declares no known x-beacon-role`);
  const parameters = [...shared, ...(operation.parameters ?? [])].map((parameter) =>
    resolve(parameter, document.components.parameters),
  );
  const validateInput = coercing.compile(
    retarget(
      {
        type: "object",
        properties: {
          path: parametersSchema(parameters, "path"),
          query: parametersSchema(parameters, "query"),
        },
      },
      COMPONENTS_ID,
    ),
  );
  const rawBody = operation["x-beacon-raw-body"] === true;
  const bodySchema = rawBody ? undefined : operation.requestBody?.content["application/json"].schema;
  const validateBody = bodySchema && strict.compile(retarget(bodySchema, COMPONENTS_ID));
  const responses = new Map<number, ValidateFunction>();
  for (const [status, response] of Object.entries(operation.responses)) {
    const schema = resolve(response, document.components.responses).content?.["application/json"]?.schema;
    if (schema) responses.set(Number(status), strict.compile(retarget(schema, COMPONENTS_ID)));
  }

  return {
    operationId: operation.operationId,
    role: role as Role,
    method: method.toUpperCase(),
    path,
    routeKey: `${method.toUpperCase()} ${path}`,
    parse(event, limits) {
      const input: ConsoleInput = {
        path: { ...event.pathParameters } as Record<string, string>,
        query: { ...event.queryStringParameters },
      };
      if (!validateInput(input)) {
        throw new BeaconError("invalid_request", describeFailure("", validateInput.errors));
      }
      if (rawBody) {
        input.body = decodeBodyBytes(event.body, event.isBase64Encoded, event.headers?.["content-encoding"], {
          maxInflatedBytes: limits.maxDocumentBytes,
        });
        input.contentType = event.headers?.["content-type"];
      } else if (validateBody) {
        const text = decodeBody(event.body, event.isBase64Encoded, event.headers?.["content-encoding"], {
          maxInflatedBytes: limits.maxInflatedBytes,
          maxJsonDepth: limits.maxJsonDepth,
        });
        if (text.trim() === "") throw new BeaconError("invalid_request", "The request needs a JSON body");
        const body = parseJsonObject(text, limits);
        if (!validateBody(body))
          throw new BeaconError("invalid_request", describeFailure("body", validateBody.errors));
        input.body = body;
      }
      return input;
    },
    assertResponse(status, body) {
      const validate = responses.get(status);
      if (!validate) throw new Error(`${operation.operationId} documents no ${status} response`);
      if (!validate(body)) {
        throw new Error(
          `${operation.operationId} answered ${status} against the document: ${describeFailure("", validate.errors)}`,
        );
      }
    },
  };
}

/** Every operation of the document, compiled once per container. */
export const consoleOperations: ConsoleOperation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  METHODS.flatMap((method) => {
    const operation = item[method];
    return operation ? [compile(path, method, operation, item.parameters ?? [])] : [];
  }),
);

const byRouteKey = new Map(consoleOperations.map((operation) => [operation.routeKey, operation]));

/** The operation API Gateway routed the request to; the local gateway routes with the same route keys. */
export function operationFor(routeKey: string): ConsoleOperation {
  const operation = byRouteKey.get(routeKey);
  if (!operation) throw new BeaconError("route_not_found", `No console route ${routeKey}`);
  return operation;
}
