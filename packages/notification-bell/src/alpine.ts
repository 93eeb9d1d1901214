// `@herald/notification-bell/alpine`: the page's own alpinejs (a peer dependency: never a second copy),
// typed with what setting up the bell needs, since alpinejs ships no types of its own.
import Alpine from 'alpinejs';
import type { HostAlpine } from './plugin.js';

/** The host's Alpine (the `alpinejs` package the page installed), typed for the bell's setup. */
const hostAlpine: HostAlpine = Alpine;
export default hostAlpine;
