import react from "@vitejs/plugin-react"
import { defaultClientConditions, defineConfig } from "vite"

// The dashboard is built once, at install time (`npm run build` from the root's `prepare`), into dist/,
// which `@agentline/http` serves at `/`. Assets get content hashes in their names (served `immutable`);
// index.html is served `no-cache`. Nothing is inlined into index.html: the server's Content-Security-Policy
// allows scripts and styles from the same origin only.
export default defineConfig({
  plugins: [react()],
  // The workspace packages are bundled from their TypeScript sources (their `source` export condition).
  resolve: { conditions: ["source", ...defaultClientConditions] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Vite inlines small assets as data: URLs by default; the CSP's img-src/font-src would then need data:.
    assetsInlineLimit: 0,
    // Every browser the dashboard targets supports <link rel=modulepreload>; no polyfill code.
    modulePreload: { polyfill: false },
    // No source maps in the shipped build (they would triple its size); `npm run dev` serves sources.
    sourcemap: false,
    chunkSizeWarningLimit: 2000
  },
  server: {
    // `npm run dev -w @agentline/dashboard` with a server on :8000: same origin for cookies through the proxy.
    proxy: { "/api": "http://127.0.0.1:8000" }
  }
})
