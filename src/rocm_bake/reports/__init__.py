"""The live reports: the runs of a ``fleet-logs/`` directory (``runs``) rendered as pages
(``pages``: every fleet run as a timeline, the nightly lane's results), served on loopback
while runs are in flight (``serve``) or written as static files (``publish``). Input:
``fleet-logs/<run-id>/run.json`` and the perf history. Beside them, the health of the machine
and the fleet (``doctor``, ``inv doctor``)."""
