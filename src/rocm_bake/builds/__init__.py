"""A build: a request from flags to the exact bake invocation, run (``request``); the checkout's
commit (``commit``); the files of each build's local contexts (``contextfiles``); why a cell
rebuilt (``whyrebuilt``)."""
