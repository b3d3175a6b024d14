// Generated from schemas/ by `npm run schemas:validators`; do not edit.
import type { ValidateFunction } from "ajv";
type Validators = () => Promise<Record<string, ValidateFunction>>;
/** Each operation's validators by operationId, imported on first use: its parameters', and its body's and answers'. */
export declare const operationValidatorsOf: Record<string, { parameters: Validators; documents: Validators }>;
