/**
 * Dependencies point one way: `npm run lint` fails on an import cycle among the sources,
 * counting type-only imports (a type is a dependency too: the pure core takes none from the
 * outer layers).
 */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Modules that import each other: move the shared names to a module of their own.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
