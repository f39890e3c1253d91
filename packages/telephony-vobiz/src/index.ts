export * as Vobiz from "./Vobiz.js"
