import { render } from "preact";
import { CONFIG_PATH, type WebConsoleConfig } from "../serving.js";
import { App } from "./app";
import "./styles.css";

/** How this console signs people in, as the server that serves it says: the deployment's or the local stack's. */
async function loadConfig(): Promise<WebConsoleConfig> {
  const response = await fetch(CONFIG_PATH, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`${CONFIG_PATH} answered ${response.status}`);
  return (await response.json()) as WebConsoleConfig;
}

const root = document.getElementById("app");
if (root) {
  loadConfig().then(
    (config) => render(<App config={config} />, root),
    (error: unknown) => {
      root.textContent = `The console could not read its configuration: ${String(error)}`;
    },
  );
}
