// The events of other domains the episodes projection reacts to, as a port: intake,
// incidents and the investigation import episodes, so episodes cannot import their names.
// Episodes declare the data they read of each; the composition root fills in each type name
// from its owner's catalogue and proves there that the owner's data has this shape.

/** The data the episodes projection reads of each event it reacts to. */
export interface EpisodeInputs {
  /** intake: a signal resolved; the episode holding it goes quiet when none fires. */
  readonly signalResolved: { readonly source: string; readonly fingerprint: string };
  /** incidents: the episode moved into another incident. */
  readonly incidentLinked: { readonly incident_id: string; readonly episode_id: string };
  /** investigate: a running episode's step. */
  readonly investigationStep: { readonly episode_id: string; readonly step: string };
  /** investigate: the decision is made; a running episode's step becomes decide. */
  readonly decisionMade: { readonly episode_id: string };
}

/** The type name of each event episodes react to, filled by the composition root. */
export type EpisodeInputTypes = { readonly [K in keyof EpisodeInputs]: string };
