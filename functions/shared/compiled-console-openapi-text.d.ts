// Generated from schemas/ by `npm run schemas:validators`; do not edit.
export declare const openApiText: string;
