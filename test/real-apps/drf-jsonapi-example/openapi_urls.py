"""The example project's URLs (example/urls.py), and drf-spectacular's view of the description at /api/schema/."""
from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from example.urls import urlpatterns as example_urlpatterns

urlpatterns = [path("api/schema/", SpectacularAPIView.as_view(), name="schema")] + list(example_urlpatterns)
