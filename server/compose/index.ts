// The composition root: the one place that builds the runtime (store, ledger, stores,
// projections) and the server (services, routes) in dependency order. Its entry points:
// buildApp (the server), createRuntime and the buildTool* services around it (svc-core and
// the tools that read a data folder);
// the event catalogue every domain declares, which the ledger is given.
export { buildApp, type AppOptions, type BuiltApp } from './app.js';
export { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
export { createCoreDoctor } from './doctor.js';
export { type LiveStreamOptions } from './live.js';
export { type KeychainOptions } from './keychain.js';
export { type StudyOptions } from './study.js';
export { buildToolConnectors, buildToolDoctor, buildToolEngine, buildToolEstate } from './tools.js';
export { createDigestSource, type DigestSource } from './digest.js';
export { EPISODE_INPUTS, EVENT_CATALOGUES, eventCatalogue } from './event-catalogue.js';
export { eventsMarkdown } from './events-doc.js';
