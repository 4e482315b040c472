"""The one owner of the site's URL formats: every address is made from a named route.

Handlers use Starlette's ``request.url_for`` / ``app.url_path_for`` on the route names of
:mod:`playtable.web.routing`; the table service, which knows no HTTP, is handed a
:class:`SiteLinks` built on the same router for the links it puts in a table's state.
"""

from __future__ import annotations

import re

from starlette.routing import Router

_PLACEHOLDER = re.compile(r"__([a-z_]+?)__")


class SiteLinks:
    """The :class:`playtable.tables.Links` of this site, as paths from its named routes.

    Each route is looked up once (a router scans its routes for every lookup): the path is
    made with placeholders and the values put in their place afterwards.
    """

    def __init__(self, router: Router) -> None:
        self._router = router
        self._templates: dict[tuple[str, tuple[str, ...]], str] = {}

    def _path(self, name: str, **params: str) -> str:
        key = (name, tuple(params))
        template = self._templates.get(key)
        if template is None:
            placeholders = {p: f"__{p}__" for p in params}
            template = str(self._router.url_path_for(name, **placeholders))
            self._templates[key] = template
        # One pass: a value is never searched for placeholders itself.
        return _PLACEHOLDER.sub(lambda match: params[match.group(1)], template)

    def table(self, table_id: str) -> str:
        return self._path("table", table_id=table_id)

    def seat(self, table_id: str, token: str) -> str:
        return self._path("seat_link", table_id=table_id, token=token)

    def invite(self, table_id: str, invite_token: str) -> str:
        return self._path("join_link", table_id=table_id, invite=invite_token)

    def watch(self, table_id: str) -> str:
        return self._path("watch", table_id=table_id)

    def socket(self, table_id: str) -> str:
        return self._path("table_socket", table_id=table_id)

    def analysis(self, table_id: str) -> str:
        return self._path("analysis", table_id=table_id)

    def api_analysis(self, table_id: str) -> str:
        return self._path("api_analysis", table_id=table_id)


__all__ = ["SiteLinks"]
