export * as Plivo from "./Plivo.js"
export * as PlivoCompatible from "./PlivoCompatible.js"
