# The why-rebuilt test cell. Its first step is the cell's own (RUN), so its cache records are no
# other test's; each ARG is declared just before the step that reads it (a declared ARG is in
# the environment, so in the cache key, of every later RUN).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
ARG RUN
RUN --network=none echo "${RUN}" > /cell
COPY --from=scripts . /opt/rocm-bake/bin/
ARG PYTORCH_COMMIT
RUN --network=none echo "${PYTORCH_COMMIT}" > /commit
ARG MAX_JOBS
RUN --network=none echo "${MAX_JOBS}" > /jobs
