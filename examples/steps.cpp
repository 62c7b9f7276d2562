#include <warmup/profile.hpp>
#include <chrono>
#include <iostream>
#include <thread>
using namespace std::chrono_literals;
int main() {
  for (int i = 0; i < 50; ++i) {
    warmup::region_scope step{"step"};
    std::this_thread::sleep_for(i == 0 ? 20ms : 1ms);
  }
  const warmup::report r = warmup::snapshot();
  warmup::print(r, std::cout);
  std::cout << warmup::to_json(r) << '\n';
}
