export * as Exotel from "./Exotel.js"
