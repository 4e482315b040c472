// Moments the server wrote in UTC (it does not know the visitor's time zone), written again
// in the visitor's own time zone: each <time datetime="..." data-local="date|time"> becomes
// the page language's date and time ("date": a deadline days away) or time of day to the
// second ("time"), the same formats as the table page's clock (clock.js).

const lang = document.documentElement.lang || undefined;
const FORMATS = {
  date: new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }),
  time: new Intl.DateTimeFormat(lang, { timeStyle: "medium" }),
};

/** Write every moment under `root` in the visitor's time zone. */
export function writeLocalTimes(root = document) {
  for (const el of root.querySelectorAll("time[data-local]")) {
    const format = FORMATS[el.dataset.local];
    const moment = new Date(el.getAttribute("datetime"));
    if (format && !Number.isNaN(moment.getTime())) el.textContent = format.format(moment);
  }
}

writeLocalTimes();
