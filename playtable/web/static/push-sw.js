// The service worker of Web Push (web/push.py): shows the server's message about a move at
// a correspondence table while no page of the table is open, and opens the table on a click.
// The server sends the words already translated: this file holds no text of its own.

self.addEventListener("push", (event) => {
  const message = event.data ? event.data.json() : null;
  if (!message) return;
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: message.body,
      tag: message.url,
      data: { url: message.url },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin);
  // A tab of the table counts whatever follows its path: the page writes the move it shows
  // into the address (#ply=12), and a query may have brought the player there.
  const isTable = (w) => {
    const open = new URL(w.url);
    return open.origin === url.origin && open.pathname === url.pathname;
  };
  event.waitUntil(
    self.clients.matchAll({ type: "window" }).then((windows) => {
      const open = windows.find(isTable);
      return open ? open.focus() : self.clients.openWindow(url.href);
    }),
  );
});
