// Scopes called from another file's static constructor and destructor (early_main.cpp).
#include <warmup/scope.hpp>

void early_work(const char* name) { warmup::region_scope s{name}; }
