// A consumer's program that measures a site of its own (PROGRAM_NAME) and calls a shared library
// that measures one more; its report holds both.
#include <warmup/profile.hpp>
#include <iostream>

void library_step();

int main() {
  for (int i = 0; i < 3; ++i) {
    WARMUP_SCOPE(PROGRAM_NAME);
    library_step();
  }
  std::cout << warmup::to_json(warmup::snapshot()) << '\n';
}
