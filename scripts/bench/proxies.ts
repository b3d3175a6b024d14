/**
 * The counting proxies of `npm run bench`, in a process of their own so that the CPU time they spend
 * forwarding requests is not counted as the agent API's. Started with `--dynamodb=<url> --kinesis=<url>`,
 * it prints one JSON line with the proxies' URLs, then answers each line it reads: `reset` with `{}`,
 * `counts` with the requests each proxy counted since the last reset, `timings` with how long their backends
 * took to answer them.
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { startCountingProxy } from "../local/counting-proxy.js";

const { values } = parseArgs({ options: { dynamodb: { type: "string" }, kinesis: { type: "string" } } });
const proxies = {
  dynamodb: await startCountingProxy(values.dynamodb as string),
  kinesis: await startCountingProxy(values.kinesis as string),
};
const reply = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
reply({ dynamodb: proxies.dynamodb.url, kinesis: proxies.kinesis.url });
for await (const command of createInterface({ input: process.stdin })) {
  if (command === "reset") {
    proxies.dynamodb.reset();
    proxies.kinesis.reset();
    reply({});
  } else if (command === "counts") {
    reply({ dynamodb: proxies.dynamodb.counts(), kinesis: proxies.kinesis.counts() });
  } else if (command === "timings") {
    reply({ dynamodb: proxies.dynamodb.timings(), kinesis: proxies.kinesis.timings() });
  }
}
await Promise.all([proxies.dynamodb.close(), proxies.kinesis.close()]);
