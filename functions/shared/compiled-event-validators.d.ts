// Generated from schemas/ by `npm run schemas:validators`; do not edit.
import type { ValidateFunction } from "ajv";
export declare const heartbeatEvent: ValidateFunction;
export declare const ackEvent: ValidateFunction;
export declare const operationEvent: ValidateFunction;
export declare const rolloutEvent: ValidateFunction;
export declare const certificateExpiringEvent: ValidateFunction;
export declare const agentOfflineEvent: ValidateFunction;
export declare const agentOnlineEvent: ValidateFunction;
export declare const agentDecommissionedEvent: ValidateFunction;
export declare const webhookDisabledEvent: ValidateFunction;
export declare const downloadEvent: ValidateFunction;
export declare const uploadEvent: ValidateFunction;
