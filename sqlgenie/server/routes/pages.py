"""The web page (ask, answer, chart, thumbs) and the review page: static files,
no build step. Vega, Vega-Lite and vega-embed come from the ``altair-viewer``
package's bundled scripts (installed with the server extra), never from a CDN."""

from __future__ import annotations

from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

router = APIRouter(include_in_schema=False)

#: The page's names for the chart scripts -> the files altair-viewer ships.
VENDOR_SCRIPTS = {"vega.js": "vega-5.21.0.js", "vega-lite.js": "vega-lite-4.17.0.js",
                  "vega-embed.js": "vega-embed-6.20.0.js"}
STATIC_FILES = {"app.js": "application/javascript", "review.js": "application/javascript",
                "common.js": "application/javascript", "style.css": "text/css"}


def static_dir() -> Path:
    return Path(str(resources.files("sqlgenie.server").joinpath("static")))


@lru_cache(maxsize=None)
def vendor_path(name: str) -> Path | None:
    """The installed file behind ``/vendor/NAME`` (None when altair-viewer is missing)."""
    file = VENDOR_SCRIPTS.get(name)
    if file is None:
        return None
    try:
        dist = metadata.distribution("altair-viewer")
    except metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(f"altair_viewer/scripts/{file}")))
    return path if path.is_file() else None


def _page(name: str) -> HTMLResponse:
    return HTMLResponse((static_dir() / name).read_text(encoding="utf-8"))


@router.get("/")
def index() -> HTMLResponse:
    return _page("index.html")


@router.get("/review")
def review_page() -> HTMLResponse:
    return _page("review.html")


@router.get("/static/{name}")
def static(name: str) -> FileResponse:
    if name not in STATIC_FILES:
        raise HTTPException(404, "No such file.")
    return FileResponse(static_dir() / name, media_type=STATIC_FILES[name])


@router.get("/vendor/{name}")
def vendor(name: str) -> FileResponse:
    path = vendor_path(name)
    if path is None:
        raise HTTPException(404, "Chart scripts not installed: pip install 'sqlgenie[server]' (altair-viewer).")
    return FileResponse(path, media_type="application/javascript", headers={"Cache-Control": "max-age=86400"})
