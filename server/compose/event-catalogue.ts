// Every domain's event catalogue, in one list: the composition root registers them with the
// ledger (which imports no domain), docs/events.md is generated from them, and GET
// /v1/search/fields names the ledger's types from them.
import { accessEvents } from '../access/index.js';
import { actEvents } from '../act/index.js';
import { approvalEvents } from '../approvals/index.js';
import { autonomyEvents } from '../autonomy/index.js';
import { brandingEvents } from '../branding/index.js';
import { connectorEvents } from '../connectors/index.js';
import { episodeEvents, type EpisodeInputs, type EpisodeInputTypes } from '../episodes/index.js';
import { estateEvents } from '../estate/index.js';
import { ingestedEvents } from '../events/index.js';
import { impactEvents } from '../impact/index.js';
import { learningEvents } from '../learning/index.js';
import { lookbackEvents } from '../lookback/index.js';
import { studyEvents } from '../study/index.js';
import { keychainEvents } from '../keychain/index.js';
import { INCIDENT_LINKED, incidentEvents } from '../incidents/index.js';
import { installEvents } from '../install/index.js';
import { intakeEvents, SIGNAL_RESOLVED } from '../intake/index.js';
import { DECISION_MADE, INVESTIGATION_STEP, investigateEvents } from '../investigate/index.js';
import {
  createEventRegistry,
  ledgerEvents,
  type Catalogue,
  type EventRegistry,
} from '../ledger/index.js';
import { licenceEvents } from '../licence/index.js';
import { mailEvents } from '../mail/index.js';
import { peopleEvents } from '../people/index.js';
import { policyEvents } from '../policy/index.js';
import { snapshotEvents } from '../snapshots/index.js';
import type { Static } from 'typebox';

/** Each domain with the events it appends (owner: the domain folder). */
export const EVENT_CATALOGUES = [
  { owner: 'install', events: installEvents },
  { owner: 'licence', events: licenceEvents },
  { owner: 'ledger', events: ledgerEvents },
  { owner: 'intake', events: intakeEvents },
  { owner: 'episodes', events: episodeEvents },
  { owner: 'incidents', events: incidentEvents },
  { owner: 'investigate', events: investigateEvents },
  { owner: 'act', events: actEvents },
  { owner: 'approvals', events: approvalEvents },
  { owner: 'autonomy', events: autonomyEvents },
  { owner: 'policy', events: policyEvents },
  { owner: 'snapshots', events: snapshotEvents },
  { owner: 'estate', events: estateEvents },
  { owner: 'connectors', events: connectorEvents },
  { owner: 'people', events: peopleEvents },
  { owner: 'access', events: accessEvents },
  { owner: 'mail', events: mailEvents },
  { owner: 'impact', events: impactEvents },
  { owner: 'learning', events: learningEvents },
  { owner: 'lookback', events: lookbackEvents },
  { owner: 'study', events: studyEvents },
  { owner: 'branding', events: brandingEvents },
  { owner: 'keychain', events: keychainEvents },
  { owner: 'events', events: ingestedEvents },
] as const;

/** The ledger's registry of every catalogued type, schemas compiled once. */
export function eventCatalogue(): EventRegistry {
  return createEventRegistry(EVENT_CATALOGUES);
}

/**
 * An owner's event type for a slot of a reader's port. It compiles only where the owner's
 * data (the Static of its schema in the owner's catalogue) has the shape the reader declares.
 */
function ownersType<Shape>() {
  return <C extends Catalogue, K extends keyof C & string>(
    _owner: C,
    type: K & (Static<C[K]> extends Shape ? K : never),
  ): K => type;
}

/** The other domains' events the episodes projection reacts to (episodes.inputs.ts). */
export const EPISODE_INPUTS: EpisodeInputTypes = {
  signalResolved: ownersType<EpisodeInputs['signalResolved']>()(intakeEvents, SIGNAL_RESOLVED),
  incidentLinked: ownersType<EpisodeInputs['incidentLinked']>()(incidentEvents, INCIDENT_LINKED),
  investigationStep: ownersType<EpisodeInputs['investigationStep']>()(
    investigateEvents,
    INVESTIGATION_STEP,
  ),
  decisionMade: ownersType<EpisodeInputs['decisionMade']>()(investigateEvents, DECISION_MADE),
};
