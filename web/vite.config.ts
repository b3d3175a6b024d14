/**
 * The web console's build: Preact through esbuild's automatic JSX runtime, no plugin needed. Each page is
 * a lazily loaded chunk, so the first load carries only the shell and the page it opens on.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  // The console is plain static files: no environment variables reach the browser.
  envPrefix: "BEACON_WEB_PUBLIC_",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  // The flow designer's graph library is written for React: preact/compat stands in for it.
  resolve: { alias: { react: "preact/compat", "react-dom": "preact/compat" } },
  build: {
    target: "es2022",
    // Lists each entry's chunks and imports: the bundle budget follows it to the first load's JavaScript.
    manifest: true,
    // Evergreen browsers preload modules themselves; the polyfill would be inline script the CSP refuses.
    modulePreload: { polyfill: false },
    emptyOutDir: true,
    reportCompressedSize: false,
    rollupOptions: {
      // React Flow marks its module "use client" for React Server Components, which a static console has none of.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  clearScreen: false,
});
