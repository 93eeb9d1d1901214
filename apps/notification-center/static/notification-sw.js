// Herald's push service worker: shows each Web Push the notification center sends (a JSON message with
// `title`, `body`, `url`, `tag`, `icon`, `ids`) and opens its `url` when the notification is clicked.

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

function messageOf(data) {
  if (!data) return {};
  try {
    const parsed = data.json();
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    // Not JSON: show the text as it came.
    return { body: data.text() };
  }
}

self.addEventListener('push', (event) => {
  const message = messageOf(event.data);
  const title = typeof message.title === 'string' && message.title ? message.title : 'New notification';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: typeof message.body === 'string' ? message.body : '',
      tag: typeof message.tag === 'string' ? message.tag : undefined,
      icon: typeof message.icon === 'string' ? message.icon : undefined,
      data: { url: typeof message.url === 'string' ? message.url : undefined, ids: message.ids ?? [] },
    }),
  );
});

/** The page to open: the push's link when it is an http(s) URL, else the site's home page. */
function targetOf(notification) {
  try {
    const url = new URL(notification.data?.url ?? '/', self.location.origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : self.location.origin;
  } catch {
    return self.location.origin;
  }
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = targetOf(event.notification);
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === target && 'focus' in client);
      return open ? open.focus() : self.clients.openWindow(target);
    }),
  );
});
