// The composition root: the one place that builds the runtime (store, ledger, stores,
// projections) and the server (services, routes) in dependency order. Its entry points:
// buildApp (the server) and createRuntime (svc-core and the tools that read a data folder).
export { buildApp, type AppOptions, type BuiltApp } from './app.js';
export { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
export { createCoreDoctor } from './doctor.js';
