// Translated strings for scripts: the module of the page's language (strings.js, which the
// page's import map points at /strings/{lang}-{kind}.js), else a JSON block <script id="i18n">
// in the page. Scripts hold no text of their own. Placeholders are "%(name)s", as in the
// Python catalogs.
import PAGE_STRINGS from "./strings.js";

let strings = PAGE_STRINGS;

function load() {
  if (strings === null) {
    const block = document.getElementById("i18n");
    strings = block ? JSON.parse(block.textContent) : {};
  }
  return strings;
}

/** The translation of `key`, with `%(name)s` placeholders filled from `params`. */
export function t(key, params = {}) {
  const template = load()[key];
  if (template === undefined) {
    console.warn(`missing translation key: ${key}`);
    return key;
  }
  return fill(template, params);
}

function fill(template, params) {
  return template.replace(/%\((\w+)\)s/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

/** Whether the page has a translation for `key`. */
export function hasString(key) {
  return Object.prototype.hasOwnProperty.call(load(), key);
}

/** The page's words for a reason the server gave in English (`reason`, a catalog message
 * whose `%(name)s` placeholders `params` fill), if it has them. */
export function refusal(reason, params = {}) {
  const known = load().refusals;
  if (!known || !Object.prototype.hasOwnProperty.call(known, reason)) return null;
  return fill(known[reason], params);
}

/** The translated name of a player ("red" -> "Red"). */
export function playerName(player) {
  return t(player);
}

/** The translated one-letter mark of a player ("red" -> "R"). */
export function playerInitial(player) {
  return t(`${player}_initial`);
}

/** A number as the page's language writes it (CLDR's data, as Babel's on the server). */
export function formatNumber(value) {
  return new Intl.NumberFormat(document.documentElement.lang || "en").format(value);
}

/** The translation of a counted message: the form for `count`'s CLDR plural category
 * (client_strings.py renders one form per category, from the catalog's own plurals);
 * `%(count)s` is filled with the formatted number. */
export function tn(key, count, params = {}) {
  const forms = load()[key];
  if (!forms || typeof forms !== "object") {
    console.warn(`missing plural translation key: ${key}`);
    return key;
  }
  const category = new Intl.PluralRules(document.documentElement.lang || "en").select(count);
  const template = forms[category] ?? forms.other;
  const all = { ...params, count: formatNumber(count) };
  return template.replace(/%\((\w+)\)s/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(all, name) ? String(all[name]) : whole,
  );
}
