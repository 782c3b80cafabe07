"""``scripts/lane.sh``: a CI lane of .github/workflows run here, as the workflow would run it
(``python -m tests.lane``)."""
