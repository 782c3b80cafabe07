# empty.Dockerfile - stand-in for an optional component a build cell skips
# (see SKIP in rocm-bake.hcl).  It holds nothing but an empty /wheels, an empty
# /compiler-cache and an empty /staging, so a consumer's
# `RUN --mount=type=bind,from=<component>,source=/wheels` and
# `COPY --from=<component> /wheels/ ...` of a wheel component, and
# `COPY --from=<component> /staging/ /opt/rocm/` of a library component (LIBRARIES), always
# resolve.
FROM scratch AS empty
WORKDIR /compiler-cache
WORKDIR /wheels
WORKDIR /staging
