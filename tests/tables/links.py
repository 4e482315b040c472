"""The site's links, as the web app hands them to the table service (for the service tests)."""

from starlette.routing import Router

from playtable.web.routing import routes
from playtable.web.urls import SiteLinks

LINKS = SiteLinks(Router(routes=routes()))
