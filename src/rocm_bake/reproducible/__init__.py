"""Reproducibility: ``inv verify-repro`` (``verify``) and where two builds differ (``diff``)."""
