export * as FsBlobStore from "./FsBlobStore.js"
