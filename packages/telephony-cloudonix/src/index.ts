export * as Cloudonix from "./Cloudonix.js"
export * as CloudonixCallbacks from "./Callbacks.js"
export * as Cxml from "./Cxml.js"
