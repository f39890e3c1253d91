// Vitest 3.2 runs the projects listed in vitest.config.ts (`test.projects`); this file names the same set
// for tools that still read a workspace file.
export default ["packages/*/vitest.config.ts", "examples/vitest.config.ts"]
