"""
The example project's own settings (example/settings/dev.py of the djangorestframework-jsonapi 8.1.0 sdist),
with the OpenAPI description drf-spectacular makes added: drf-spectacular-jsonapi's JSON:API AutoSchema and
its paginator (djangorestframework-jsonapi's own paginator plus the description of its answer), the database
file named by DRF_EXAMPLE_DB, and ROOT_URLCONF pointing to openapi_urls (the example's URLs and the
description at /api/schema/). Nothing else of the example changes (DEBUG stays on, as the example has it).
"""
import os

from example.settings.dev import *  # noqa: F401,F403

DATABASES["default"]["NAME"] = os.environ.get("DRF_EXAMPLE_DB", "drf_example.sqlite3")  # noqa: F405
ROOT_URLCONF = "openapi_urls"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = INSTALLED_APPS + ["drf_spectacular", "drf_spectacular_jsonapi"]  # noqa: F405
REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] = "drf_spectacular_jsonapi.schemas.openapi.JsonApiAutoSchema"  # noqa: F405
REST_FRAMEWORK["DEFAULT_PAGINATION_CLASS"] = "drf_spectacular_jsonapi.schemas.pagination.JsonApiPageNumberPagination"  # noqa: F405
SPECTACULAR_SETTINGS = {"TITLE": "DJA example", "VERSION": "8.1.0"}
