/* rb_plugin_offset() -> 1, in C. */
long rb_plugin_offset(void) { return 1; }
