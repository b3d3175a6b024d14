// A handler answers agents within seconds; a request stuck longer is better failed and retried.
export const connectionTimeoutMs = 1_000;
const requestTimeoutMs = 3_000;
// An emulator shares the machine's cores with everything else running on it (the local stack, a test
// suite, a load generator), so it pauses for seconds where the AWS service answers in milliseconds; failing
// its requests at the AWS bound would report the machine's load as Beacon's failures.
export const emulatorRequestTimeoutMs = 15_000;

/** How long a request to an AWS service is given, or to an emulator when one stands at a custom endpoint. */
export const requestTimeoutFor = (customEndpoint: boolean): number =>
  customEndpoint ? emulatorRequestTimeoutMs : requestTimeoutMs;

/** Assets of up to 4 MiB go up and down in one request, a few seconds at worst from a function's subnet. */
export const s3RequestTimeoutMs = 10_000;

/** How long a request to S3 is given: the larger of the two at an emulator, whose pauses come on top of the bytes. */
export const s3RequestTimeoutFor = (customEndpoint: boolean): number =>
  customEndpoint ? emulatorRequestTimeoutMs : s3RequestTimeoutMs;
