"""Reading the network, bounded: every answer within its deadline (the request's, and the
run's) and its size cap, read as it streams in (never whole into memory before it is
measured), archives member by member within theirs, credentials sent only to the origin they
were given for. drift, lint, bump and the registry client read through it."""
