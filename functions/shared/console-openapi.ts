import type { ErrorObject, ValidateFunction } from "ajv";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { isScopeRule, type ScopeRule } from "../core/console/scopes.js";
import { BeaconError } from "../core/errors.js";
import { type Role, Roles } from "../core/identity/principal.js";
import { type LoadedOnce, loadedOnce } from "../core/loaded-once.js";
import { openApiText } from "./compiled-console-openapi-text.js";
import { operationValidatorsOf } from "./compiled-console-operations.js";
import {
  type ConsoleDocument,
  type DocumentOperation,
  documentOperations,
  takesRawBody,
  validatorNames,
} from "./console-openapi-document.js";
import { type BodyLimits, decodeBody, decodeBodyBytes, parseJsonObject } from "./http.js";
import { charactersRefused, patternInWords } from "./pattern-words.js";

/** schemas/console/openapi.json, which the console serves, as TypeScript reads it. */
type OpenApiDocument = typeof import("../../schemas/console/openapi.json", { with: { type: "json" }});

/** Parsed from its text (compiled-console-openapi-text.js), which V8 reads faster than the object as code. */
export const openApiDocument: OpenApiDocument = JSON.parse(openApiText);

/** The console API's routes, parameters, bodies and responses: all read from schemas/console/openapi.json. */
export interface ConsoleOperation {
  operationId: string;
  /** The least role the operation needs (`x-beacon-role`). */
  role: Role;
  /** What it is to a principal limited to some classes (`x-beacon-scope`). */
  scope: ScopeRule;
  method: string;
  /** As API Gateway spells a route key: `GET /api/v1/agents/{agentId}`. */
  routeKey: string;
  path: string;
  /**
   * Path and query parameters, validated and converted to their types; the body when there is one:
   * a JSON value, or the bytes as sent for an operation that takes a document (`x-beacon-raw-body`).
   */
  parse(event: APIGatewayProxyEventV2, limits: ConsoleBodyLimits): Promise<ConsoleInput>;
  /** Throws unless `body` is what the document promises for this status. */
  assertResponse(status: number, body: unknown): Promise<void>;
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

function requiredValidator(validate: ValidateFunction | undefined, name: string): ValidateFunction {
  if (!validate) throw new Error(`No compiled validator ${name}: run npm run schemas:validators`);
  return validate;
}

type OperationValidators = (name: string) => ValidateFunction | undefined;
type ValidatorsKind = "parameters" | "documents";
const validatorsLoaded = new Map<string, LoadedOnce<OperationValidators>>();

/**
 * An operation's validators of a kind (its parameters', or its body's and answers') by name, imported when the
 * operation is first called (a module of its own: a cold start compiles none of them); one import shared by the
 * calls that wait for it, tried again by the next call if it failed.
 */
function operationValidators(operationId: string, kind: ValidatorsKind): Promise<OperationValidators> {
  const key = `${kind} ${operationId}`;
  let validators = validatorsLoaded.get(key);
  if (validators === undefined) {
    const load = Object.hasOwn(operationValidatorsOf, operationId)
      ? operationValidatorsOf[operationId]?.[kind]
      : undefined;
    if (!load) throw new Error(`No compiled validators of ${operationId}: run npm run schemas:validators`);
    validators = loadedOnce(async () => {
      const byName = await load();
      return (name: string) => (Object.hasOwn(byName, name) ? byName[name] : undefined);
    });
    validatorsLoaded.set(key, validators);
  }
  return validators();
}

const validatorOf = async (operationId: string, kind: ValidatorsKind, name: string) =>
  requiredValidator((await operationValidators(operationId, kind))(name), name);

/** The validator of the JSON body `operationId` takes, as the console API checks it. */
export const bodyValidatorOf = (operationId: string): Promise<ValidateFunction> =>
  validatorOf(operationId, "documents", validatorNames(operationId).body);

/**
 * The validator of `operationId`'s path and query parameters, `{ path, query }` as API Gateway gives them: it
 * converts each to the type the document declares.
 */
export const inputValidatorOf = (operationId: string): Promise<ValidateFunction> =>
  validatorOf(operationId, "parameters", validatorNames(operationId).input);

/** The value a validation error is about, found by its JSON pointer in what was validated. */
function valueAt(data: unknown, pointer: string): unknown {
  return pointer
    .split("/")
    .slice(1)
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>(
      (value, key) =>
        typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined,
      data,
    );
}

/** A validation failure as the API words it: where, and what is wrong (a pattern in words). */
export function describeFailure(
  where: string,
  errors: ErrorObject[] | null | undefined,
  data?: unknown,
): string {
  const [first] = errors ?? [];
  const at = `${where}${first?.instancePath ?? ""}`;
  if (first?.keyword === "pattern") {
    // A person reads this: the form the value takes in words, never the regular expression.
    const value = String(valueAt(data, first.instancePath));
    const pattern = String(first.params.pattern);
    const refused = charactersRefused(pattern, value).map((char) => JSON.stringify(char));
    const why =
      refused.length > 0 ? ` (${refused.join(", ")} ${refused.length === 1 ? "is" : "are"} not allowed)` : "";
    const words = patternInWords(pattern);
    const field = first.instancePath.replace(/^\/(query|path)\/(.+)$/, "$1 parameter $2");
    return `${where === "" ? field : at}: ${JSON.stringify(value)} is not of the form it takes${why}${words ? `: ${words}` : ""}`;
  }
  const extra =
    first?.keyword === "additionalProperties" ? ` (${String(first.params.additionalProperty)})` : "";
  return `${at} ${first?.message ?? "does not match the API document"}${extra}`;
}

function compile({ path, method, operation }: DocumentOperation): ConsoleOperation {
  const role = operation["x-beacon-role"];
  if (!Roles.includes(role as Role))
    throw new Error(`${operation.operationId} declares no known x-beacon-role`);
  const scope = operation["x-beacon-scope"];
  if (!isScopeRule(scope)) throw new Error(`${operation.operationId} declares no known x-beacon-scope`);
  const names = validatorNames(operation.operationId);
  const rawBody = takesRawBody(operation);
  const takesJsonBody = !rawBody && operation.requestBody !== undefined;
  const bodyRequired = operation.requestBody?.required === true;

  return {
    operationId: operation.operationId,
    role: role as Role,
    scope,
    method: method.toUpperCase(),
    path,
    routeKey: `${method.toUpperCase()} ${path}`,
    async parse(event, limits) {
      const input: ConsoleInput = {
        path: { ...event.pathParameters } as Record<string, string>,
        query: { ...event.queryStringParameters },
      };
      const validateInput = await inputValidatorOf(operation.operationId);
      if (!validateInput(input)) {
        throw new BeaconError("invalid_request", describeFailure("", validateInput.errors, input));
      }
      if (rawBody) {
        input.body = decodeBodyBytes(event.body, event.isBase64Encoded, event.headers?.["content-encoding"], {
          maxInflatedBytes: limits.maxDocumentBytes,
        });
        input.contentType = event.headers?.["content-type"];
      } else if (takesJsonBody) {
        const validateBody = await bodyValidatorOf(operation.operationId);
        const text = decodeBody(event.body, event.isBase64Encoded, event.headers?.["content-encoding"], {
          maxInflatedBytes: limits.maxInflatedBytes,
          maxJsonDepth: limits.maxJsonDepth,
        });
        if (text.trim() === "") {
          if (bodyRequired) throw new BeaconError("invalid_request", "The request needs a JSON body");
        } else {
          const body = parseJsonObject(text, limits);
          if (!validateBody(body))
            throw new BeaconError("invalid_request", describeFailure("body", validateBody.errors, body));
          input.body = body;
        }
      }
      return input;
    },
    async assertResponse(status, body) {
      const validate = (await operationValidators(operation.operationId, "documents"))(
        names.response(status),
      );
      if (!validate) throw new Error(`${operation.operationId} documents no ${status} response`);
      if (!validate(body)) {
        throw new Error(
          `${operation.operationId} answered ${status} against the document: ${describeFailure("", validate.errors)}`,
        );
      }
    },
  };
}

/** Every operation of the document, its validators compiled ahead of time. */
export const consoleOperations: ConsoleOperation[] = documentOperations(
  openApiDocument as unknown as ConsoleDocument,
).map(compile);

const byRouteKey = new Map(consoleOperations.map((operation) => [operation.routeKey, operation]));

/** The operation API Gateway routed the request to; the local gateway routes with the same route keys. */
export function operationFor(routeKey: string): ConsoleOperation {
  const operation = byRouteKey.get(routeKey);
  if (!operation) throw new BeaconError("route_not_found", `No console route ${routeKey}`);
  return operation;
}
