"""Build performance under the four cache conditions (frozen, hot, warm, cold): one measured
bake (:mod:`.runner`), preparing each condition for real (:mod:`.conditions`), the JSON-lines
history (:mod:`.history`, its record format :mod:`.schema`), its HTML report
(:mod:`.report`) and a build's wall time cut into its RUN steps and its fixed cost
(:mod:`.fixedcost`)."""
