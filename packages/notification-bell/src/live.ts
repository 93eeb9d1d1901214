// `@herald/notification-bell/live`: the live connections on their own, for code that drives them itself. The
// bell imports them on demand, so that a page without broadcasting never loads pusher-js.
export type { LiveConnection, LiveHandlers } from './live/connection.js';
export { connectHub, type HubTarget } from './live/hub.js';
export { connectWsproto, type WsprotoTarget } from './live/wsproto.js';
