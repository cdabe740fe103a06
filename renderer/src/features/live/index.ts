// The live feature as other folders see it: they import from here, never its files.
export { liveStream } from './live-stream.js';
export { LivePage } from './live.js';
export { WallPage } from './wall.js';
export { type Live } from './api.js';
export { useLive } from './queries.js';
