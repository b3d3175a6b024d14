// Generated from schemas/ by `npm run schemas:validators`; do not edit.
import type { ValidateFunction } from "ajv";
export declare const heartbeat: ValidateFunction;
export declare const acknowledge: ValidateFunction;
export declare const heartbeatResponse: ValidateFunction;
