import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../scripts/test-support/until.js";
import { SignInError } from "../web/src/oauth.js";
import { completionWords } from "./completion.js";
import { configPath, readConfig, resolveContext, withContext, withCurrent, writeConfig } from "./config.js";
import { ExitCode, UsageError } from "./exit.js";
import { beaconInProcess } from "./in-process.js";
import { integer } from "./kit.js";
import { run } from "./main.js";
import { fields, table } from "./output.js";
import { beaconProgram, share } from "./program.js";
import { needsRenewal, renewSignIn } from "./session.js";
import { signInWithBrowser } from "./sign-in.js";

const beacon = beaconInProcess;

describe("the command line", () => {
  it("answers --help everywhere with 0", async () => {
    for (const args of [
      ["--help"],
      ["rollouts", "--help"],
      ["rollouts", "watch", "--help"],
      ["help", "agents"],
    ]) {
      const { code, stdout } = await beacon(args);
      expect(code, args.join(" ")).toBe(ExitCode.ok);
      expect(stdout).toMatch(/^Usage: beacon/);
    }
  });

  it("exits 2 on a usage error, before any request", async () => {
    const cases: [string[], RegExp][] = [
      [["agents", "frobnicate"], /unknown command 'frobnicate'/],
      [["agents", "list", "--limit", "0"], /expected a whole number ≥ 1/],
      [["rollouts", "start", "--class", "c"], /required option '--flow <hash>'/],
      [["rollouts", "start", "--class", "c", "--flow", "f", "--canary", "120%"], /1% to 100%/],
      [["completion", "fish"], /Allowed choices are bash, zsh/],
      [["agents", "list"], /No deployment to talk to/],
      [["agents", "list"], /Not signed in/],
      [["context", "use", "nowhere"], /No context named nowhere/],
      [
        ["flows", "publish", "/no/such/flow.json", "--class", "c"],
        /Cannot read \/no\/such\/flow.json: ENOENT/,
      ],
    ];
    for (const [[first, ...rest], message] of cases) {
      const env =
        message.source.includes("Not signed in") || message.source.includes("Cannot read")
          ? { BEACON_URL: "http://127.0.0.1:9" }
          : {};
      const { code, stderr } = await beacon([first as string, ...rest], env);
      expect({ args: [first, ...rest], code, stderr }).toMatchObject({ code: ExitCode.usage });
      expect(stderr).toMatch(message);
    }
  });

  it("exits 1 with the reason when the deployment cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { code, stderr } = await beacon(["agents", "list"], {
      BEACON_URL: `http://127.0.0.1:${port}`,
      BEACON_TOKEN: "token",
    });
    expect(code).toBe(ExitCode.refused);
    expect(stderr).toMatch(/^beacon: fetch failed: .*ECONNREFUSED/);
  });

  it("reads shares and whole numbers as the rollout plan takes them", () => {
    expect(share("3")).toEqual({ count: 3 });
    expect(share("10%")).toEqual({ percent: 10 });
    for (const bad of ["", "-1", "1.5", "0%", "101%", "ten"]) expect(() => share(bad)).toThrow();
    expect(integer(0)("0")).toBe(0);
    for (const bad of ["-1", "1.5", "x", ""]) expect(() => integer(1)(bad)).toThrow();
  });
});

describe("output", () => {
  it("pads columns to their widest cell and shows an empty cell as a dash", () => {
    expect(
      table(
        ["agent", "status", "flow"],
        [
          ["a-1", "online", undefined],
          ["agent-22", "offline", "v3"],
        ],
      ),
    ).toBe(["AGENT     STATUS   FLOW", "a-1       online   -", "agent-22  offline  v3"].join("\n"));
    expect(table(["a"], [])).toBe("A");
    expect(
      fields([
        ["Class", "edge"],
        ["Active rollout", undefined],
      ]),
    ).toBe("Class:          edge\nActive rollout: -");
  });
});

describe("a browser sign-in kept alive", () => {
  const tokenExpiringAt = (seconds: number) =>
    `e30.${Buffer.from(JSON.stringify({ exp: seconds })).toString("base64url")}.e30`;

  it("is renewed when its ID token has expired, will within a minute, or says nothing of when", () => {
    const now = 1_800_000_000_000;
    expect(needsRenewal(tokenExpiringAt(now / 1000 + 3600), now)).toBe(false);
    expect(needsRenewal(tokenExpiringAt(now / 1000 + 61), now)).toBe(false);
    expect(needsRenewal(tokenExpiringAt(now / 1000 + 60), now)).toBe(true);
    expect(needsRenewal(tokenExpiringAt(now / 1000 - 1), now)).toBe(true);
    expect(needsRenewal("not-a-jwt", now)).toBe(true);
  });

  it("asks nothing of the provider for a token a script gave, or one without a refresh token", async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "beacon-cli-")), "beacon", "config.json");
    const expired = tokenExpiringAt(1);
    writeConfig(file, withContext({ contexts: {} }, "prod", { url: "http://127.0.0.1:9", token: expired }));
    const refusing = (() => {
      throw new Error("no request expected");
    }) as unknown as typeof fetch;
    await renewSignIn(file, {}, undefined, Date.now(), refusing);
    const scripted = withContext(readConfig(file), "prod", {
      url: "http://127.0.0.1:9",
      token: expired,
      refreshToken: "kept",
    });
    writeConfig(file, scripted);
    await renewSignIn(file, { BEACON_TOKEN: "from-ci" }, undefined, Date.now(), refusing);
    expect(readConfig(file)).toEqual(scripted);
  });
});

describe("signing in as the CLI's own client", () => {
  /** A deployment whose /config.json names a CLI client returning to a fixed loopback port, as a user pool's does. */
  async function deploymentNaming(redirectPort: number) {
    const server = createServer((request, response) => {
      if (request.url !== "/config.json") return void response.writeHead(404).end();
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          oauth: {
            authorizationEndpoint: "https://sign-in.example/oauth2/authorize",
            tokenEndpoint: "/oauth2/token",
            clientId: "console-client",
            issuer: "https://issuer.example",
            scopes: ["openid"],
          },
          cli: { clientId: "cli-client", redirectUri: `http://localhost:${redirectPort}/auth/callback` },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return port;
  }

  it("asks for the CLI's client and its registered address, and listens on that address's port", async () => {
    const port = await freePort();
    const deployment = await deploymentNaming(port);
    let printed = "";
    const io = {
      out: () => undefined,
      err: (text: string) => {
        printed += text;
      },
    };
    try {
      // Its outcome is read once the callback came; caught now, so that it is never a rejection left unread.
      const signingIn = signInWithBrowser(deployment.url, io, false).catch((error: Error) => error);
      const address = new URL(
        await until("the sign-in address", async () => /^ {2}(\S+)$/m.exec(printed)?.[1]),
      );
      expect(address.origin + address.pathname).toBe("https://sign-in.example/oauth2/authorize");
      expect(address.searchParams.get("client_id")).toBe("cli-client");
      expect(address.searchParams.get("redirect_uri")).toBe(`http://localhost:${port}/auth/callback`);
      const refusal = new URLSearchParams({
        state: address.searchParams.get("state") as string,
        error: "access_denied",
        error_description: "not this time",
      });
      const back = await fetch(`http://127.0.0.1:${port}/auth/callback?${refusal}`);
      expect(back.status).toBe(400);
      expect(await signingIn).toEqual(new SignInError("The identity provider refused: not this time"));
    } finally {
      deployment.server.close();
    }
  });

  it("says so when the registered port is taken, as by another sign-in", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    const deployment = await deploymentNaming(port);
    try {
      await expect(
        signInWithBrowser(deployment.url, { out: () => undefined, err: () => undefined }, false),
      ).rejects.toThrow(
        new UsageError(`Port ${port}, where sign-in returns, is in use: is another beacon login running?`),
      );
    } finally {
      taken.close();
      deployment.server.close();
    }
  });
});

describe("the config file", () => {
  it("lives under XDG_CONFIG_HOME, else ~/.config, and is written readable by its owner only", () => {
    expect(configPath({ XDG_CONFIG_HOME: "/x" })).toBe("/x/beacon/config.json");
    expect(configPath({ HOME: "/home/op" })).toBe("/home/op/.config/beacon/config.json");
    const file = path.join(mkdtempSync(path.join(tmpdir(), "beacon-config-")), "beacon", "config.json");
    expect(readConfig(file)).toEqual({ contexts: {} });
    const config = withContext(readConfig(file), "local", { url: "http://127.0.0.1:8080/some/page" });
    writeConfig(file, {
      ...config,
      contexts: { local: { ...config.contexts.local, url: "http://127.0.0.1:8080" } },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readConfig(file)).toEqual({
      current: "local",
      contexts: { local: { url: "http://127.0.0.1:8080" } },
    });
    writeFileSync(file, "{");
    expect(() => readConfig(file)).toThrow(UsageError);
  });

  it("keeps contexts by name, the first added current, and resolves BEACON_URL and BEACON_TOKEN over them", () => {
    let config = withContext({ contexts: {} }, "prod", {
      url: "https://beacon.example.com/fleet",
      token: "p",
    });
    config = withContext(config, "staging", { url: "https://staging.example.com" });
    expect(config.current).toBe("prod");
    expect(config.contexts.prod?.url).toBe("https://beacon.example.com");
    expect(() => withContext(config, "bad name", { url: "https://x" })).toThrow(/context name/);
    expect(() => withContext(config, "ftp", { url: "ftp://x" })).toThrow(/http or https/);
    expect(resolveContext(config, {})).toEqual({
      name: "prod",
      url: "https://beacon.example.com",
      token: "p",
    });
    expect(resolveContext(withCurrent(config, "staging"), {}).token).toBeUndefined();
    expect(resolveContext(config, {}, "staging")).toMatchObject({ name: "staging" });
    expect(resolveContext(config, { BEACON_TOKEN: "ci" }).token).toBe("ci");
    expect(resolveContext({ contexts: {} }, { BEACON_URL: "http://b", BEACON_TOKEN: "t" })).toEqual({
      name: undefined,
      url: "http://b",
      token: "t",
    });
    expect(() => resolveContext(config, {}, "nowhere")).toThrow(/No context named nowhere/);
    expect(() => withCurrent(config, "nowhere")).toThrow(UsageError);
  });

  it("adds, uses and lists contexts from the command line", async () => {
    const { home } = await beacon(["context", "add", "one", "--url", "http://127.0.0.1:1"]);
    const env = { XDG_CONFIG_HOME: home };
    const io = { out: () => undefined, err: () => undefined };
    expect(await run(["context", "add", "two", "--url", "http://127.0.0.1:2"], io, env)).toBe(0);
    expect(await run(["context", "use", "two"], io, env)).toBe(0);
    expect(await run(["login", "--token", "a.eyJjdXN0b206dGVuYW50IjoiYWNtZSJ9.c"], io, env)).toBe(0);
    let listed = "";
    await run(["context", "list", "--json"], { out: (text) => (listed += text), err: () => undefined }, env);
    expect(JSON.parse(listed)).toEqual([
      { name: "one", current: false, url: "http://127.0.0.1:1", signedIn: false },
      { name: "two", current: true, url: "http://127.0.0.1:2", tenant: "acme", signedIn: true },
    ]);
    const file = JSON.parse(readFileSync(path.join(home, "beacon", "config.json"), "utf8"));
    expect(file.contexts.two.token).toBe("a.eyJjdXN0b206dGVuYW50IjoiYWNtZSJ9.c");
  });
});

describe("completion", () => {
  it("offers every command's subcommands and options, and the global ones everywhere", async () => {
    const words = completionWords(
      beaconProgram({ io: { out: () => undefined, err: () => undefined }, env: {}, exitCode: 0 }),
    );
    expect(words.get("")).toEqual(expect.arrayContaining(["agents", "rollouts", "completion", "--json"]));
    expect(words.get("rollouts")).toEqual(
      expect.arrayContaining(["start", "watch", "pause", "resume", "abort", "--json"]),
    );
    expect(words.get("rollouts start")).toEqual(
      expect.arrayContaining(["--class", "--flow", "--watch", "--json"]),
    );
    const { code, stdout } = await beacon(["completion", "bash"]);
    expect(code).toBe(0);
    expect(stdout).toContain('["rollouts watch"]="--interval --context --json --help"');
    expect(stdout).toContain("complete -F _beacon beacon");
    expect((await beacon(["completion", "zsh"])).stdout).toMatch(/^autoload -U \+X bashcompinit/);
  });
});
