"""The one owner of the site's URL formats: every address is made from a named route.

Handlers use Starlette's ``request.url_for`` / ``app.url_path_for`` on the route names of
:mod:`playtable.web.routing`; the table service, which knows no HTTP, is handed a
:class:`SiteLinks` built on the same router for the links it puts in a table's state.
"""

from __future__ import annotations

from starlette.routing import Router


class SiteLinks:
    """The :class:`playtable.tables.Links` of this site, as paths from its named routes."""

    def __init__(self, router: Router) -> None:
        self._router = router

    def table(self, table_id: str) -> str:
        return str(self._router.url_path_for("table", table_id=table_id))

    def seat(self, table_id: str, token: str) -> str:
        return str(self._router.url_path_for("seat_link", table_id=table_id, token=token))

    def invite(self, table_id: str, invite_token: str) -> str:
        return str(self._router.url_path_for("join_link", table_id=table_id, invite=invite_token))

    def watch(self, table_id: str) -> str:
        return str(self._router.url_path_for("watch", table_id=table_id))

    def socket(self, table_id: str) -> str:
        return str(self._router.url_path_for("table_socket", table_id=table_id))

    def analysis(self, table_id: str) -> str:
        return str(self._router.url_path_for("analysis", table_id=table_id))

    def api_analysis(self, table_id: str) -> str:
        return str(self._router.url_path_for("api_analysis", table_id=table_id))


__all__ = ["SiteLinks"]
