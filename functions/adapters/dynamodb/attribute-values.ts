/**
 * Documents to and from DynamoDB's attribute values as its JSON API carries them (binary as base64), with the
 * document client's settings in aws-clients/dynamodb.ts: an undefined attribute, list element or set member left
 * out, an empty string kept, an empty set or a number JavaScript cannot hold exactly refused.
 */

type Item = Record<string, unknown>;
type AttributeValue = Record<string, unknown>;

export function toAttributeValues(item: Item): Record<string, AttributeValue> {
  const values: Record<string, AttributeValue> = {};
  for (const name in item) {
    const value = item[name];
    if (value !== undefined) values[name] = attributeValueOf(value, name);
  }
  return values;
}

export function fromAttributeValues(values: Item): Item {
  const item: Item = {};
  for (const name in values) item[name] = documentValueOf(values[name] as AttributeValue, name);
  return item;
}

function attributeValueOf(value: unknown, path: string): AttributeValue {
  switch (typeof value) {
    case "string":
      return { S: value };
    case "number":
      return { N: numberText(value, path) };
    case "bigint":
      return { N: value.toString() };
    case "boolean":
      return { BOOL: value };
    case "object":
      if (value === null) return { NULL: true };
      if (Array.isArray(value)) return { L: defined(value).map((member) => attributeValueOf(member, path)) };
      if (value instanceof Set) return setOf(defined([...value]), path);
      if (isBinary(value)) return { B: base64Of(value) };
      if (value instanceof Map) return { M: toAttributeValues(Object.fromEntries(value)) };
      if (isPlainObject(value)) return { M: toAttributeValues(value as Item) };
  }
  throw new TypeError(`${path}: a ${describe(value)} has no DynamoDB attribute value`);
}

function setOf(members: unknown[], path: string): AttributeValue {
  if (members.length === 0) throw new TypeError(`${path}: an empty set has no DynamoDB attribute value`);
  if (members.every((member) => typeof member === "string")) return { SS: members };
  if (members.every((member) => typeof member === "number" || typeof member === "bigint")) {
    return {
      NS: members.map((member) => (typeof member === "number" ? numberText(member, path) : String(member))),
    };
  }
  if (members.every(isBinary)) return { BS: members.map(base64Of) };
  throw new TypeError(`${path}: a set's members must all be strings, numbers or binary`);
}

function documentValueOf(value: AttributeValue, path: string): unknown {
  if ("S" in value) return value.S;
  if ("N" in value) return numberOf(value.N as string, path);
  if ("BOOL" in value) return value.BOOL;
  if ("NULL" in value) return null;
  if ("M" in value) return fromAttributeValues(value.M as Item);
  if ("L" in value) return (value.L as AttributeValue[]).map((member) => documentValueOf(member, path));
  if ("SS" in value) return new Set(value.SS as string[]);
  if ("NS" in value) return new Set((value.NS as string[]).map((member) => numberOf(member, path)));
  if ("B" in value) return binaryOf(value.B as string);
  if ("BS" in value) return new Set((value.BS as string[]).map(binaryOf));
  throw new TypeError(`${path}: an attribute value of an unknown type (${Object.keys(value).join(", ")})`);
}

const defined = (members: unknown[]) => members.filter((member) => member !== undefined);

function numberText(value: number, path: string): string {
  if (!Number.isFinite(value)) throw new TypeError(`${path}: ${value} is not a number DynamoDB holds`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(`${path}: ${value} is beyond what a JavaScript number holds exactly; use a bigint`);
  }
  return String(value);
}

function numberOf(text: string, path: string): number {
  const value = Number(text);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(`${path}: ${text} is beyond what a JavaScript number holds exactly`);
  }
  return value;
}

const isBinary = (value: unknown): value is Uint8Array | ArrayBuffer =>
  value instanceof Uint8Array || value instanceof ArrayBuffer;

function base64Of(value: Uint8Array | ArrayBuffer): string {
  const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function binaryOf(base64: string): Uint8Array {
  const bytes = Buffer.from(base64, "base64");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

const describe = (value: unknown) =>
  typeof value === "object" ? (value?.constructor?.name ?? "object") : typeof value;
