export {
  buildDigest,
  dayOf,
  MAX_DAYS,
  windowOf,
  type Digest,
  type DigestEpisode,
  type DigestInput,
} from './digest.js';
export { digestRoutes } from './digest.routes.js';
