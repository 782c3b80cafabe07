# empty.Dockerfile - stand-in for an optional component a build cell skips
# (see SKIP in rocm-bake.hcl).  It holds nothing but an empty /wheels and an empty
# /compiler-cache, so a consumer's `RUN --mount=type=bind,from=<component>,source=/wheels`
# and `COPY --from=<component> /wheels/ ...` always resolve.
FROM scratch AS empty
WORKDIR /compiler-cache
WORKDIR /wheels
