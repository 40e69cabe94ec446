// The esbuild options every Node bundle of the project shares (the CLI's and the box's): ESM for
// Node 20, bundled, with shared chunks loaded on demand.
export const nodeBundle = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
};
