/**
 * The console API's document, schemas/console/openapi.json, read as its operations and the JSON Schemas that
 * check their input and answers. `npm run schemas:validators` compiles these schemas ahead of time
 * (compiled-console-*.js), so that the console API compiles none when it starts.
 */

type Schema = Record<string, unknown>;
export interface Parameter {
  name: string;
  in: "path" | "query";
  required?: boolean;
  schema: Schema;
}
export interface OperationObject {
  operationId: string;
  "x-beacon-role": string;
  /** What the operation is to a principal limited to some classes (core/console/scopes.ts). */
  "x-beacon-scope": string;
  /** The body is a document (a flow, JSON or YAML) the use case reads itself, not a JSON request. */
  "x-beacon-raw-body"?: boolean;
  parameters?: (Parameter | { $ref: string })[];
  /** OpenAPI's `required` is false unless said: an operation whose body is optional takes a request without one. */
  requestBody?: { required?: boolean; content: { "application/json": { schema: Schema } } };
  responses: Record<string, { $ref: string } | { content?: { "application/json"?: { schema: Schema } } }>;
}

/** One operation of the document, where it is: `method` in lower case, as the document spells it. */
export interface DocumentOperation {
  path: string;
  method: string;
  operation: OperationObject;
  /** The path item's parameters and the operation's own, references resolved. */
  parameters: Parameter[];
}

const METHODS = ["get", "put", "post", "delete"] as const;
/** The parts of the document read here. */
export interface ConsoleDocument {
  paths: Record<
    string,
    Partial<Record<(typeof METHODS)[number], OperationObject>> & { parameters?: Parameter[] }
  >;
  components: {
    schemas: Schema;
    parameters: Record<string, Parameter>;
    responses: Record<string, { content?: { "application/json"?: { schema: Schema } } }>;
  };
}

const resolve = <T>(value: T | { $ref: string }, components: Record<string, T>): T => {
  if (typeof value === "object" && value !== null && "$ref" in value) {
    return components[value.$ref.split("/").at(-1) as string] as T;
  }
  return value;
};

/** Every operation of the document, in its order. */
export const documentOperations = (document: ConsoleDocument): DocumentOperation[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        resolve(parameter, document.components.parameters),
      );
      return [{ path, method, operation, parameters }];
    }),
  );

/** The operation's body is read as the bytes sent, not as JSON checked against a schema. */
export const takesRawBody = (operation: OperationObject): boolean => operation["x-beacon-raw-body"] === true;

/** Where the components are registered with the validators, for the schemas' references to point at. */
const COMPONENTS_ID = "beacon-console";

/** Points a document reference at the components registered under COMPONENTS_ID. */
const retarget = (schema: Schema, prefix: string): Schema =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${prefix}#/$defs/`));

/** The document's component schemas, as the schema every operation's schemas refer to. */
export const componentsSchema = (document: ConsoleDocument): Schema => ({
  $id: COMPONENTS_ID,
  $defs: retarget(document.components.schemas, ""),
});

function parametersSchema(parameters: Parameter[], location: "path" | "query"): Schema {
  const mine = parameters.filter((parameter) => parameter.in === location);
  return {
    type: "object",
    properties: Object.fromEntries(mine.map((parameter) => [parameter.name, parameter.schema])),
    required: mine.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    additionalProperties: false,
  };
}

/** The names the compiled validators of an operation are exported under. */
export const validatorNames = (operationId: string) => ({
  input: `${operationId}Input`,
  body: `${operationId}Body`,
  response: (status: number | string) => `${operationId}Response${status}`,
});

/**
 * An operation's schemas by their validators' names: its path and query parameters (`parameters`: values
 * arrive as text, and are converted), and its JSON body and each response's (`documents`: checked as they are).
 */
export function operationSchemas(
  document: ConsoleDocument,
  { operation, parameters }: DocumentOperation,
): {
  parameters: Record<string, Schema>;
  documents: Record<string, Schema>;
} {
  const names = validatorNames(operation.operationId);
  const documents: Record<string, Schema> = {};
  const bodySchema = takesRawBody(operation)
    ? undefined
    : operation.requestBody?.content["application/json"].schema;
  if (bodySchema) documents[names.body] = retarget(bodySchema, COMPONENTS_ID);
  for (const [status, response] of Object.entries(operation.responses)) {
    const schema = resolve(response, document.components.responses).content?.["application/json"]?.schema;
    if (schema) documents[names.response(status)] = retarget(schema, COMPONENTS_ID);
  }
  const input = {
    type: "object",
    properties: { path: parametersSchema(parameters, "path"), query: parametersSchema(parameters, "query") },
  };
  return { parameters: { [names.input]: retarget(input, COMPONENTS_ID) }, documents };
}
