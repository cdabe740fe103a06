export {
  ACCESS_SETTINGS_SET,
  createPeopleStore,
  ROLE_CHANGED,
  TEAM_CREATED,
  TEAM_DELETED,
  TEAM_UPDATED,
  USER_CREATED,
  USER_DELETED,
  USER_UPDATED,
  type PeopleStore,
  type UserRecord,
} from './people.store.js';
export { checkAccess, checkEmail, groupAllowed } from './people.rules.js';
export {
  createPeopleService,
  type AdmitIdentity,
  type AdmitVia,
  type Caller,
  type PeopleService,
  type PersonIdentity,
  type SessionControl,
} from './people.service.js';
export { peopleRoutes } from './people.routes.js';
export {
  DEFAULT_ACCESS,
  HANDLE_KINDS,
  type AccessSettings,
  type AccessSettingsView,
  type Handles,
  type Team,
  type User,
} from './people.schemas.js';
export { peopleEvents, type PeopleEvents } from './people.events.js';
