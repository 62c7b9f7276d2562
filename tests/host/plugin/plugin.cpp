// A shared library no test program links: loading it inside a first call must show in that
// call's host signals.
extern "C" int warmup_test_plugin_answer() { return 42; }
