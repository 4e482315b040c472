// The translated strings of the page's language. A page's import map points this module at
// its language's own (/strings/fi-boxes.js?v=..., web/script_strings.py), kept by the browser
// for as long as its content stays the same; without a map (a module imported on its own)
// there are none here, and i18n.js reads the page's JSON block if it has one.
export default null;
