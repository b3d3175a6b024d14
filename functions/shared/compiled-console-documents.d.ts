// Generated from schemas/ by `npm run schemas:validators`; do not edit.
import type { ValidateFunction } from "ajv";
/** Each operation's body and answer validators, by operationId, imported on first use. */
export declare const documentValidatorsOf: Record<string, () => Promise<Record<string, ValidateFunction>>>;
