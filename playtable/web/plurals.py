"""A counted message's translations for the browser, one a plural category (``i18n.js``'s
``tn``); apart from :mod:`playtable.web.client_strings` so that the string modules it merges
(``replay_strings``) use it too without an import cycle."""

from __future__ import annotations

import gettext

from babel import Locale, UnknownLocaleError


def plural_forms(catalog: gettext.NullTranslations, singular: str, plural: str) -> dict[str, str]:
    """The translation of a counted message for each CLDR plural category of the catalog's
    language (``one``, ``few``, ``other``...), as ``static/js/i18n.js``'s ``tn`` picks them
    with ``Intl.PluralRules``: each category's form is the catalog's own for the smallest
    whole number in that category. Categories with no whole number (Czech ``many``) fall
    back to ``other`` in the script."""
    lang = catalog.info().get("language") or "en"
    try:
        rule = Locale.parse(lang.replace("-", "_")).plural_form
    except (UnknownLocaleError, ValueError):  # a language CLDR does not know: English's
        rule = Locale("en").plural_form
    forms: dict[str, str] = {}
    for n in range(0, 200):
        forms.setdefault(rule(n), catalog.ngettext(singular, plural, n))
    return forms
