"""Build performance under the four cache conditions (frozen, hot, warm, cold): one measured
bake (:mod:`.runner`), preparing each condition for real (:mod:`.conditions`), the JSON-lines
history (:mod:`.history`) and its HTML report (:mod:`.report`)."""
