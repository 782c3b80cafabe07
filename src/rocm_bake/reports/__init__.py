"""The live reports: every fleet run as a timeline (``fleet``), the nightly lane's results
(``nightly``), served on loopback while runs are in flight (``serve``) or written as static
files (``publish``). Input: ``fleet-logs/<run-id>/run.json`` and the perf history. Beside
them, the health of the machine and the fleet (``doctor``, ``inv doctor``)."""
