export * as Cloudonix from "./Cloudonix.js"
