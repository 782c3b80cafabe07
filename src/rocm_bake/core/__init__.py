"""The foundation: error types (``errors``), injectable time (``clock``), the one atomic write
(``atomic``), optional dependencies (``extras``), URL credential masking (``redact``), terminal
tables (``tables``), a task's flags declared once (``flags``) and the one page server on
127.0.0.1 (``pageserver``)."""
