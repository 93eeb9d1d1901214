// `@herald/notification-bell/standalone` is the script for a plain page: it registers the bell with the page's
// Alpine (or starts its own) when loaded, and exports nothing.
export {};
