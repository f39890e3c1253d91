export * as Ari from "./Ari.js"
