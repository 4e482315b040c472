// The service worker of Web Push (web/push.py): shows the server's message about a move at
// a correspondence table unless the player is looking at that table's page, and opens the
// table on a click.
// The server sends the words already translated: this file holds no text of its own.

// The table whose player's page an address is: /t/{id}, whatever the language prefix
// (/fi/t/{id}), the move it shows (#ply=12) or a query; not its watch or analysis page.
const TABLE_PAGE = /^(?:\/[a-z]{2})?\/t\/([^/]+)\/?$/;

function tableOf(address) {
  const match = TABLE_PAGE.exec(new URL(address, self.location.origin).pathname);
  return match ? match[1] : null;
}

function windowsOf(table) {
  // pages opened before the worker took over are not its clients: they count too
  return self.clients
    .matchAll({ type: "window", includeUncontrolled: true })
    .then((windows) => windows.filter((w) => table !== null && tableOf(w.url) === table));
}

self.addEventListener("push", (event) => {
  const message = event.data ? event.data.json() : null;
  if (!message) return;
  const table = tableOf(message.url);
  event.waitUntil(
    windowsOf(table).then((open) => {
      // The player has the table in front of them: the page shows and says the move itself,
      // and a notification on top of it was one too many (each move of a game played with
      // the page open came twice).
      if (open.some((w) => w.focused && w.visibilityState === "visible")) return undefined;
      return self.registration.showNotification(message.title, {
        body: message.body,
        tag: message.url,
        data: { url: message.url },
      });
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin);
  // A tab of the table counts in whatever language and at whatever move it is (the page
  // writes the move it shows into the address, #ply=12): it is brought forward.
  event.waitUntil(
    windowsOf(tableOf(url.href)).then((open) =>
      open.length ? open[0].focus() : self.clients.openWindow(url.href),
    ),
  );
});
